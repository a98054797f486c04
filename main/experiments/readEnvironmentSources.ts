import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";

/** An environment read from a file, before validation. */
export interface EnvironmentSource {
  /** How reports name it: the file name, or `<file>:<line>` for JSONL. */
  name: string;
  code: string;
  hint: string | null;
  skill: string | null;
  source: string;
}

export interface ReadSources {
  sources: EnvironmentSource[];
  /** Lines or files that could not even be read as an environment. */
  unreadable: { name: string; error: string }[];
}

/**
 * Reads environments from a directory of `.py` files (sorted by name) or a JSONL file whose lines
 * carry at least `code` (the `spade envs export` format).
 */
export function readEnvironmentSources(path: string): ReadSources {
  const stat = statSync(path);
  if (stat.isDirectory()) {
    const files = readdirSync(path).filter((name) => name.endsWith(".py")).sort();
    return { sources: files.map((name) => ({ name, code: readFileSync(join(path, name), "utf8"), hint: null, skill: null, source: name })), unreadable: [] };
  }
  const result: ReadSources = { sources: [], unreadable: [] };
  const file = basename(path);
  readFileSync(path, "utf8").split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    const name = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      result.unreadable.push({ name, error: `not valid JSON: ${(error as Error).message}` });
      return;
    }
    const record = value as Record<string, unknown>;
    if (typeof record !== "object" || record === null || typeof record.code !== "string" || record.code.trim() === "") {
      result.unreadable.push({ name, error: `field "code": expected the environment's Python code as a string` });
      return;
    }
    const text = (key: string) => (typeof record[key] === "string" ? (record[key] as string) : null);
    result.sources.push({
      name: typeof record.className === "string" ? `${name} (${record.className})` : name,
      code: record.code,
      hint: text("hint"),
      skill: text("skill"),
      source: text("source") ?? name,
    });
  });
  return result;
}
