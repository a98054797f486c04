import type { EnvPackageFormat } from "../../../shared/envExport.js";
import type { EnvPackageWriter } from "./EnvPackageWriter.js";
import { packageNames } from "./packageNames.js";
import { packageValues } from "./packageValues.js";
import { renderFormatTemplates } from "./renderFormatTemplates.js";
import { runtimeFiles } from "./runtimeFiles.js";

/**
 * A writer for formats that make one Python package per environment: the format's templates
 * rendered into `<name>/`, and the runtime placed where the package's modules import it from
 * (`runtimeIn`, relative to the package folder, `{module}` for the Python module).
 */
export function pythonPackageWriter(format: Exclude<EnvPackageFormat, "game-files">, runtimeIn: string): EnvPackageWriter {
  return {
    format,
    write(environments) {
      const names = packageNames(environments.map((environment) => environment.className));
      const files = environments.flatMap((environment, i) => {
        const name = names[i]!;
        const runtimeDir = runtimeIn.replace("{module}", name.module);
        return [
          ...renderFormatTemplates(format, name.name, packageValues(environment, name)),
          ...runtimeFiles(runtimeDir ? `${name.name}/${runtimeDir}` : name.name, environment),
        ];
      });
      return { files, packages: environments.map((environment, i) => ({ path: names[i]!.name, environment })) };
    },
  };
}
