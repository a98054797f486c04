import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { resourcePath } from "../../paths.js";
import { renderTemplate } from "../../util/renderTemplate.js";
import type { PackageFile } from "./EnvPackageWriter.js";

/** Tokens a template's path uses for the package name (as OpenEnv's own templates do) and the Python module. */
const PATH_TOKENS: Array<[string, string]> = [["__ENV_NAME__", "name"], ["__MODULE__", "module"]];

/**
 * Every `*.tmpl` file under `resources/exports/<format>/`, rendered with `values` (`{{key}}`
 * placeholders; a missing value is an error) and placed under `into`: `.tmpl` dropped and
 * `__ENV_NAME__` / `__MODULE__` in its path replaced by `values.name` / `values.module`.
 */
export function renderFormatTemplates(format: string, into: string, values: Record<string, string>): PackageFile[] {
  const root = resourcePath("exports", format);
  return templateFiles(root).map((file) => {
    let path = relative(root, file).split(sep).join("/").replace(/\.tmpl$/, "");
    for (const [token, key] of PATH_TOKENS) path = path.split(token).join(values[key] ?? token);
    return { path: into ? `${into}/${path}` : path, bytes: Buffer.from(renderTemplate(readFileSync(file, "utf8"), values)) };
  });
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => (entry.isDirectory() ? templateFiles(join(dir, entry.name)) : entry.name.endsWith(".tmpl") ? [join(dir, entry.name)] : []));
}
