import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { AceBenchItem, AceBenchSuite } from "./AceBenchItem.js";
import { readJsonLines as jsonLines } from "./readJsonLines.js";
import { SuiteFormatError } from "./SuiteFormatError.js";

/** Whether a suite line is an ACEBench-Agent item: an `agent_multi_step`/`agent_multi_turn` id, the task as one string, `initial_config`, `involved_classes`. */
export function isAceBenchSuiteLine(fields: Record<string, unknown>): boolean {
  return typeof fields.id === "string" && /^agent_multi_(step|turn)/.test(fields.id) && typeof fields.question === "string" && "initial_config" in fields && "involved_classes" in fields;
}

/**
 * Reads an ACEBench-Agent file in ACEBench's own layout: `<checkout>/data_all/data_<en|zh>/data_agent_multi_step.json`
 * (or `_multi_turn`), one item a line (`id`, `question`, `function`, `initial_config`,
 * `involved_classes`), its possible answers in `possible_answer/<same name>` beside it (`id`,
 * `ground_truth` as `[{Class: {attribute: value}}]`, `mile_stone`); the checkout two folders up
 * holds the API classes and prompts the worker reads.
 */
export function readAceBenchSuite(path: string, limit = Infinity): AceBenchSuite {
  const folder = dirname(resolve(path));
  const language = /^data_(en|zh)$/.exec(basename(folder))?.[1] as "en" | "zh" | undefined;
  if (!language) throw new SuiteFormatError(`${path}: an ACEBench-Agent file must sit in ACEBench's layout, <checkout>/data_all/data_en (or data_zh)/${basename(path)}`);
  const root = resolve(folder, "..", "..");
  if (!existsSync(join(root, "model_inference"))) throw new SuiteFormatError(`${path}: ${root} is not an ACEBench checkout (no model_inference/ folder with the API classes)`);
  const answersPath = join(folder, "possible_answer", basename(path));
  if (!existsSync(answersPath)) throw new SuiteFormatError(`${path}: an ACEBench-Agent file needs its possible answers in ${answersPath}`);
  const answers = new Map<string, Pick<AceBenchItem, "groundTruth" | "mileStone">>();
  for (const { fields, where } of jsonLines(answersPath)) {
    if (typeof fields.id !== "string") throw new SuiteFormatError(`${where}: id: expected the item's id as a string`);
    const truth = fields.ground_truth;
    if (!Array.isArray(truth) || !truth.every((entry) => isObject(entry) && Object.keys(entry).length === 1 && Object.values(entry).every(isObject))) {
      throw new SuiteFormatError(`${where}: ground_truth: expected a list of {Class: {attribute: value}}`);
    }
    const stones = fields.mile_stone;
    const strings = (list: unknown) => Array.isArray(list) && list.every((s) => typeof s === "string");
    if (!Array.isArray(stones) || !(strings(stones) || (stones.length > 0 && stones.every(strings)))) {
      throw new SuiteFormatError(`${where}: mile_stone: expected a list of call strings like "[turn_on_wifi()]", or a list of such lists`);
    }
    answers.set(fields.id, { groundTruth: truth as AceBenchItem["groundTruth"], mileStone: stones as AceBenchItem["mileStone"] });
  }
  const items: AceBenchItem[] = [];
  for (const { fields, where } of jsonLines(path)) {
    if (items.length >= limit) break;
    if (!isAceBenchSuiteLine(fields)) throw new SuiteFormatError(`${where}: expected an ACEBench-Agent item {id: "agent_multi_step_N" or "agent_multi_turn_N", question: string, function, initial_config, involved_classes}`);
    const id = fields.id as string;
    const functions = typeof fields.function === "string" || isObject(fields.function) ? [fields.function] : fields.function;
    if (!Array.isArray(functions)) throw new SuiteFormatError(`${where}: function: expected the list of function docs`);
    const classes = fields.involved_classes;
    if (!Array.isArray(classes) || classes.length === 0 || !classes.every((c) => typeof c === "string")) throw new SuiteFormatError(`${where}: involved_classes: expected a non-empty list of class names`);
    if (!isObject(fields.initial_config)) throw new SuiteFormatError(`${where}: initial_config: expected an object of each class's initial state`);
    const answer = answers.get(id);
    if (!answer) throw new SuiteFormatError(`${where}: id ${id}: no possible answer with this id in ${answersPath}`);
    items.push({
      index: items.length,
      id,
      category: id.startsWith("agent_multi_turn") ? "multi_turn" : "multi_step",
      question: fields.question as string,
      functions,
      initialConfig: fields.initial_config,
      involvedClasses: classes as string[],
      ...answer,
    });
  }
  if (items.length === 0) throw new SuiteFormatError(`${path}: the suite holds no items`);
  return { items, root, language };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
