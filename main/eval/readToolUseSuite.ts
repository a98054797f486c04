import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { readJsonLines as jsonLines } from "./readJsonLines.js";
import { SuiteFormatError } from "./SuiteFormatError.js";
import type { ToolUseItem, ToolUseSuite } from "./ToolUseItem.js";

/** Whether a suite line is a BFCL-style multi-turn item (`question` turns, `initial_config`, `involved_classes`). */
export function isToolUseSuiteLine(fields: Record<string, unknown>): boolean {
  return "question" in fields && "involved_classes" in fields && "initial_config" in fields;
}

/**
 * Reads a BFCL-v4 multi-turn suite in BFCL's data layout: the test file (one item a line: `id`,
 * `question` as a list of turns of chat messages, `initial_config`, `involved_classes`, and
 * `missed_function` in the miss-func category), the ground truth in `possible_answer/<same name>`
 * beside it (`id`, `ground_truth` as a list of turns of call strings), the API classes in
 * `func_source_code/` and their function docs in `multi_turn_func_doc/` beside it (when absent,
 * the worker takes the classes of the installed bfcl_eval).
 */
export function readToolUseSuite(path: string, limit = Infinity): ToolUseSuite {
  const answersPath = join(dirname(path), "possible_answer", basename(path));
  if (!existsSync(answersPath)) throw new SuiteFormatError(`${path}: a BFCL multi-turn suite needs its ground truth in ${answersPath} (BFCL's possible_answer layout)`);
  const truth = new Map<string, string[][]>();
  jsonLines(answersPath).forEach(({ fields, where }) => {
    if (typeof fields.id !== "string") throw new SuiteFormatError(`${where}: id: expected the item's id as a string`);
    truth.set(fields.id, turnList(fields.ground_truth, `${where}: ground_truth`, (call, at) => {
      if (typeof call !== "string") throw new SuiteFormatError(`${at}: expected a call string like "cd(folder='documents')"`);
      return call;
    }));
  });
  const items: ToolUseItem[] = [];
  for (const { fields, where } of jsonLines(path)) {
    if (items.length >= limit) break;
    if (!isToolUseSuiteLine(fields)) throw new SuiteFormatError(`${where}: expected a BFCL multi-turn item {id, question, initial_config, involved_classes} like the suite's first line`);
    if (typeof fields.id !== "string") throw new SuiteFormatError(`${where}: id: expected the item's id as a string`);
    if (typeof fields.question === "string") throw new SuiteFormatError(`${where}: question: a single string is an ACEBench-Agent item; an ACEBench-Agent file must start with one (id agent_multi_step_N or agent_multi_turn_N), not be mixed into a BFCL suite`);
    const turns = turnList(fields.question, `${where}: question`, (message, at) => {
      const m = message as Record<string, unknown>;
      if (!m || (m.role !== "user" && m.role !== "system") || typeof m.content !== "string") throw new SuiteFormatError(`${at}: expected a message {role: "user", content: string}`);
      return { role: m.role as "user" | "system", content: m.content };
    });
    const classes = fields.involved_classes;
    if (!Array.isArray(classes) || classes.length === 0 || !classes.every((c) => typeof c === "string")) throw new SuiteFormatError(`${where}: involved_classes: expected a non-empty list of class names`);
    const initial = fields.initial_config;
    if (typeof initial !== "object" || initial === null || Array.isArray(initial)) throw new SuiteFormatError(`${where}: initial_config: expected an object of each class's initial state`);
    const missed = fields.missed_function ?? {};
    if (typeof missed !== "object" || missed === null || Array.isArray(missed) || !Object.values(missed).every((names) => Array.isArray(names) && names.every((n) => typeof n === "string"))) {
      throw new SuiteFormatError(`${where}: missed_function: expected an object of turn index -> function names`);
    }
    const groundTruth = truth.get(fields.id);
    if (!groundTruth) throw new SuiteFormatError(`${where}: id ${fields.id}: no ground truth with this id in ${answersPath}`);
    if (groundTruth.length !== turns.length) throw new SuiteFormatError(`${answersPath}: id ${fields.id}: ground_truth has ${groundTruth.length} turns, the question has ${turns.length}`);
    items.push({
      index: items.length,
      id: fields.id,
      turns,
      initialConfig: initial as Record<string, unknown>,
      involvedClasses: classes as string[],
      missedFunction: missed as Record<string, string[]>,
      groundTruth,
      longContext: fields.id.includes("long_context"),
    });
  }
  if (items.length === 0) throw new SuiteFormatError(`${path}: the suite holds no items`);
  return { items, classesDir: join(dirname(path), "func_source_code"), docsDir: join(dirname(path), "multi_turn_func_doc") };
}

function turnList<T>(value: unknown, where: string, read: (entry: unknown, at: string) => T): T[][] {
  if (!Array.isArray(value)) throw new SuiteFormatError(`${where}: expected a list of turns, each a list`);
  return value.map((turn, t) => {
    if (!Array.isArray(turn)) throw new SuiteFormatError(`${where}[${t}]: expected a list`);
    return turn.map((entry, i) => read(entry, `${where}[${t}][${i}]`));
  });
}
