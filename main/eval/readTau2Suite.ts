import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { SuiteFormatError } from "./SuiteFormatError.js";
import type { Tau2Spec, Tau2Suite } from "./Tau2Suite.js";

/** Whether a `.json` suite file is a tau2 suite (a top-level `tau2` object). */
export function isTau2SuitePath(path: string): boolean {
  if (!path.endsWith(".json")) return false;
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) && "tau2" in value;
  } catch {
    return false;
  }
}

/** Reads a tau2 suite file; paths are relative to it; every field is checked by name. */
export function readTau2Suite(path: string): Tau2Suite {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new SuiteFormatError(`${path}: not a readable JSON file: ${(error as Error).message}`);
  }
  const spec = (value as { tau2?: unknown }).tau2;
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) throw new SuiteFormatError(`${path}: tau2: expected an object`);
  const s = spec as Record<string, unknown>;
  const known = ["path", "dataDir", "tasks", "numTrials", "maxSteps", "maxConcurrency", "agent", "user"];
  const unknown = Object.keys(s).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new SuiteFormatError(`${path}: tau2.${unknown[0]}: unknown key (known: ${known.join(", ")})`);
  const folder = dirname(resolve(path));
  const where = (key: string) => `${path}: tau2.${key}`;
  const location = (key: string) => {
    if (s[key] === undefined || s[key] === null) return null;
    if (typeof s[key] !== "string" || s[key] === "") throw new SuiteFormatError(`${where(key)}: expected a folder path`);
    return isAbsolute(s[key]) ? s[key] : resolve(folder, s[key]);
  };
  const count = (object: Record<string, unknown>, key: string, name: string, fallback: number, min = 1) => {
    const v = object[key];
    if (v === undefined) return fallback;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min) throw new SuiteFormatError(`${where(name)}: expected a whole number >= ${min}, got ${JSON.stringify(v)}`);
    return v;
  };
  const number = (object: Record<string, unknown>, key: string, name: string, fallback: number) => {
    const v = object[key];
    if (v === undefined) return fallback;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new SuiteFormatError(`${where(name)}: expected a number >= 0, got ${JSON.stringify(v)}`);
    return v;
  };
  const section = (key: string) => {
    const v = s[key] ?? {};
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new SuiteFormatError(`${where(key)}: expected an object`);
    return v as Record<string, unknown>;
  };
  const rawTasks = s.tasks ?? [{ domain: "retail" }, { domain: "telecom" }, { domain: "airline" }];
  if (!Array.isArray(rawTasks) || rawTasks.length === 0) throw new SuiteFormatError(`${where("tasks")}: expected a non-empty list of {domain, split?, limit?}`);
  const tasks: Tau2Spec[] = rawTasks.map((entry, i) => {
    const e = entry as Record<string, unknown>;
    if (typeof e !== "object" || e === null || typeof e.domain !== "string" || e.domain === "") throw new SuiteFormatError(`${where(`tasks[${i}]`)}: expected {domain: string, split?: string, limit?: number}`);
    if (e.split !== undefined && typeof e.split !== "string") throw new SuiteFormatError(`${where(`tasks[${i}].split`)}: expected a split name like "base"`);
    return { domain: e.domain, split: (e.split as string | undefined) ?? "base", limit: e.limit === undefined || e.limit === null ? null : count(e, "limit", `tasks[${i}].limit`, 1) };
  });
  const agent = section("agent");
  const user = section("user");
  return {
    path: location("path"),
    dataDir: location("dataDir"),
    tasks,
    numTrials: count(s, "numTrials", "numTrials", 4),
    maxSteps: count(s, "maxSteps", "maxSteps", 200),
    maxConcurrency: count(s, "maxConcurrency", "maxConcurrency", 8),
    agent: { temperature: number(agent, "temperature", "agent.temperature", 0), topP: number(agent, "topP", "agent.topP", 0.8), topK: count(agent, "topK", "agent.topK", 20), maxTokens: count(agent, "maxTokens", "agent.maxTokens", 16384) },
    user: { temperature: number(user, "temperature", "user.temperature", 0), maxTokens: count(user, "maxTokens", "user.maxTokens", 2048) },
  };
}
