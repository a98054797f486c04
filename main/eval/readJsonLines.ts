import { readFileSync } from "node:fs";
import { SuiteFormatError } from "./SuiteFormatError.js";

/** A JSON-lines suite file's objects, each with `path:line` for error messages; blank lines skipped. */
export function readJsonLines(path: string): { fields: Record<string, unknown>; where: string }[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new SuiteFormatError(`${path}: cannot read the suite: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return text.split("\n").flatMap((line, i) => {
    if (line.trim() === "") return [];
    const where = `${path}:${i + 1}`;
    let fields: unknown;
    try {
      fields = JSON.parse(line);
    } catch (error) {
      throw new SuiteFormatError(`${where}: not valid JSON: ${(error as Error).message}`);
    }
    if (typeof fields !== "object" || fields === null || Array.isArray(fields)) throw new SuiteFormatError(`${where}: expected a JSON object`);
    return [{ fields: fields as Record<string, unknown>, where }];
  });
}
