import { readFileSync } from "node:fs";
import { resourcePath } from "../../paths.js";

/** One template of `resources/exports/<format>/`, as text. */
export function loadTemplate(format: string, name: string): string {
  return readFileSync(resourcePath("exports", format, name), "utf8");
}
