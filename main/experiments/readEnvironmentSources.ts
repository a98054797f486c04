import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { gameSkills, toolUseSkills } from "../../shared/skills.js";

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
 * carry at least `code` (the `spade envs export` format). Games saved by the reference
 * implementation keep their skill: it is read from the file name
 * (`game_<rollout>_<index>_<skill_slug>.py`) or from a `"""Generated game for <skill>"""` header.
 */
export function readEnvironmentSources(path: string): ReadSources {
  const stat = statSync(path);
  if (stat.isDirectory()) {
    const files = readdirSync(path).filter((name) => name.endsWith(".py")).sort();
    return {
      sources: files.map((name) => {
        const code = readFileSync(join(path, name), "utf8");
        return { name, code, hint: null, skill: referenceSkill(name, code), source: name };
      }),
      unreadable: [],
    };
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

const knownSkills = [...gameSkills, ...toolUseSkills].map((skill) => skill.name);

/** The skill of a game file the reference saved, or null when neither its name nor its header says. */
export function referenceSkill(fileName: string, code: string): string | null {
  const header = /^\s*"""Generated game for ([^"\n]+)"""/.exec(code)?.[1]?.trim();
  if (header) return header;
  const slug = /^(?:game|reject)_\d+_\d+_(.+)\.py$/.exec(fileName)?.[1];
  if (slug === undefined) return null;
  // A rejected game's name goes on with its rejection stage: the skill is the known slug it starts with.
  return knownSkills.find((skill) => slug === skill.toLowerCase().replaceAll(" ", "_") || slug.startsWith(skill.toLowerCase().replaceAll(" ", "_") + "_")) ?? null;
}
