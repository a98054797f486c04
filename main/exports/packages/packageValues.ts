import type { PackagedEnvironment } from "../../../shared/envExport.js";
import { actionRuleText, environmentKind } from "./environmentKind.js";
import { originSection } from "./originSection.js";
import type { PackageNames } from "./packageNames.js";

/** The `{{placeholders}}` every format's templates may use for one environment. */
export function packageValues(environment: PackagedEnvironment, names: PackageNames): Record<string, string> {
  const kind = environmentKind(environment.code);
  return {
    ...names,
    kind,
    maxTurns: String(environment.maxTurns),
    actionRule: actionRuleText(kind),
    origin: originSection(environment),
    source: environment.source,
  };
}
