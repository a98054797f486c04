import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SuiteFormatError } from "./SuiteFormatError.js";

export interface EnvironmentSuiteFile {
  file: string;
  code: string;
}

/** The `.py` environments of a suite folder, in file-name order (the first `limit` of them). */
export function readEnvironmentSuite(dir: string, limit?: number): EnvironmentSuiteFile[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".py"))
    .sort()
    .slice(0, limit ?? Infinity);
  if (files.length === 0) throw new SuiteFormatError(`${dir}: the environment suite folder holds no .py files`);
  return files.map((file) => ({ file, code: readFileSync(join(dir, file), "utf8") }));
}
