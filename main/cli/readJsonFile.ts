import { readFileSync } from "node:fs";
import { UsageError } from "./UsageError.js";

/** Reads and parses a JSON file named on the command line; failures name the file and the problem. */
export function readJsonFile(command: string, path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`spade ${command}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`spade ${command}: ${path} is not valid JSON: ${(error as Error).message}`);
  }
}
