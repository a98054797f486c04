import type { PackagedEnvironment } from "../../../shared/envExport.js";
import { actionRuleText, environmentKind } from "./environmentKind.js";
import { originSection } from "./originSection.js";
import type { PackageNames } from "./packageNames.js";
import { tomlString } from "./tomlString.js";

/**
 * The `{{placeholders}}` every format's templates may use for one environment. Environment text
 * never reaches a template as it is: names are identifiers by `packageNames`' rule, `source` is a
 * quoted literal (`tomlString`), and the README's origin section is Markdown, not code.
 */
export function packageValues(environment: PackagedEnvironment, names: PackageNames): Record<string, string> {
  const kind = environmentKind(environment.code);
  return {
    ...names,
    kind,
    maxTurns: String(environment.maxTurns),
    actionRule: actionRuleText(kind),
    origin: originSection(environment),
    source: tomlString(environment.source),
  };
}
