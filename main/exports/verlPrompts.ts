import { parquetWriteBuffer } from "hyparquet-writer";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getEnvironment } from "../store/queries/environments.js";
import { getTurns, listEpisodes } from "../store/queries/episodes.js";
import { listPlayedEnvironments } from "../store/queries/trainingQueries.js";
import type { Run } from "../store/queries/runs.js";
import type { ExportFile } from "./writeRunMetrics.js";

/** One row of `verl.parquet`: a prompt verl rolls out itself, and what its reward function needs. */
export interface VerlPromptRow {
  data_source: string;
  /**
   * The agent loop verl runs the row in (verl/experimental/agent_loop/agent_loop.py reads the
   * dataset's `agent_name`; docs/start/agentic_rl.rst): `spade_agent`, `SpadeAgentLoop` of
   * `spade_verl_interaction.py`, registered by `spade_agent_loop.yaml`.
   */
  agent_name: typeof verlAgentName;
  prompt: Array<{ role: string; content: string }>;
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: {
    index: number;
    split: string;
    environment_id: number;
    seed: number;
    class_name: string;
    code: string;
    /** What verl's multi-turn rollout passes to `SpadeInteraction.start_interaction` (`spade_verl_interaction.py`). */
    interaction_kwargs: { name: "spade"; code: string; seed: number; max_turns: number };
  };
}

export interface VerlExport {
  files: ExportFile[];
  rows: VerlPromptRow[];
  counts: { rows: number; environments: number; excludedNoPrompt: number };
}

/** Name of the reward function file written beside the Parquet file (verl's `custom_reward_function.path`). */
export const verlRewardFile = "spade_verl_reward.py";

/** Name of the multi-turn interaction file written beside it (verl's `interaction_config_path` names its class). */
export const verlInteractionFile = "spade_verl_interaction.py";

/** The rows' `agent_name`: verl's ToolAgentLoop made to play every reply in the game (`SpadeAgentLoop`). */
export const verlAgentName = "spade_agent";

/** verl's agent loop config registering it (`actor_rollout_ref.rollout.agent.agent_loop_config_path`). */
export const verlAgentLoopConfig = `- name: ${verlAgentName}\n  _target_: spade_verl_interaction.SpadeAgentLoop\n`;

/** verl's interaction config for it. */
export const verlInteractionConfig = `interaction:\n  - name: spade\n    class_name: spade_verl_interaction.SpadeInteraction\n    config: {}\n`;

/**
 * verl / OpenRLHF train from prompts and roll out themselves, so they get prompts, not groups: one
 * row per (valid environment, seed) the run played without a hint, whose prompt is the first
 * turn's messages exactly as the agent saw them, with the environment's code and seed in
 * `extra_info` and `agent_name: spade_agent`: verl plays the whole game through
 * `spade_verl_interaction.py` (one `spade env session` per rollout, the reward the game's return),
 * so verl never runs generated code itself. `spade_verl_reward.py` returns that return, or for a
 * single-turn rollout plays the reply's first step (`spade env play`).
 */
export function verlPrompts(db: ReadonlyDb, runs: readonly Run[], rewardScript: string, interactionScript: string): VerlExport {
  const rows: VerlPromptRow[] = [];
  let environments = 0;
  let excludedNoPrompt = 0;
  for (const run of runs) {
    const config = run.config as { maxTurns?: unknown } | null;
    const maxTurns = typeof config?.maxTurns === "number" && Number.isInteger(config.maxTurns) && config.maxTurns > 0 ? config.maxTurns : 25;
    for (const played of listPlayedEnvironments(db, run.id)) {
      const environment = getEnvironment(db, played.id);
      if (!environment?.code) continue;
      const seeds = new Set<number>();
      let added = false;
      for (const episode of listEpisodes(db, played.id)) {
        if (episode.hinted || episode.canary || episode.seed === null || seeds.has(episode.seed)) continue;
        seeds.add(episode.seed);
        const first = getTurns(db, episode.id)[0];
        if (!first?.messages?.length) {
          excludedNoPrompt++;
          continue;
        }
        added = true;
        rows.push({
          data_source: `spade/run-${run.id}`,
          agent_name: verlAgentName,
          prompt: first.messages.map((message) => ({ role: message.role, content: message.content })),
          ability: played.skill ?? "spade",
          reward_model: { style: "rule", ground_truth: JSON.stringify({ environmentId: played.id, seed: episode.seed }) },
          extra_info: { index: rows.length, split: "train", environment_id: played.id, seed: episode.seed, class_name: played.className ?? "", code: environment.code, interaction_kwargs: { name: "spade", code: environment.code, seed: episode.seed, max_turns: maxTurns } },
        });
      }
      if (added) environments++;
    }
  }
  const files: ExportFile[] = [
    { path: "verl.parquet", bytes: Buffer.from(parquetWriteBuffer({ schema: verlSchema, columnData: columns(rows) })) },
    { path: verlRewardFile, bytes: Buffer.from(rewardScript, "utf8") },
    { path: verlInteractionFile, bytes: Buffer.from(interactionScript, "utf8") },
    { path: "spade_interaction.yaml", bytes: Buffer.from(verlInteractionConfig, "utf8") },
    { path: "spade_agent_loop.yaml", bytes: Buffer.from(verlAgentLoopConfig, "utf8") },
  ];
  return { files, rows, counts: { rows: rows.length, environments, excludedNoPrompt } };
}

const text = (name: string, repetition: "REQUIRED" | "OPTIONAL" = "OPTIONAL") => ({ name, type: "BYTE_ARRAY" as const, converted_type: "UTF8" as const, repetition_type: repetition });
const int = (name: string) => ({ name, type: "INT64" as const, repetition_type: "OPTIONAL" as const });

// The nested layout verl's RLHFDataset reads through pandas/pyarrow: prompt is a list of {role, content}.
const verlSchema = [
  { name: "root", num_children: 6 },
  text("data_source", "REQUIRED"),
  text("agent_name", "REQUIRED"),
  { name: "prompt", repetition_type: "OPTIONAL" as const, converted_type: "LIST" as const, num_children: 1 },
  { name: "list", repetition_type: "REPEATED" as const, num_children: 1 },
  { name: "element", repetition_type: "OPTIONAL" as const, num_children: 2 },
  text("role"),
  text("content"),
  text("ability"),
  { name: "reward_model", repetition_type: "OPTIONAL" as const, num_children: 2 },
  text("style"),
  text("ground_truth"),
  { name: "extra_info", repetition_type: "OPTIONAL" as const, num_children: 7 },
  int("index"),
  text("split"),
  int("environment_id"),
  int("seed"),
  text("class_name"),
  text("code"),
  { name: "interaction_kwargs", repetition_type: "OPTIONAL" as const, num_children: 4 },
  text("name"),
  text("code"),
  int("seed"),
  int("max_turns"),
];

function columns(rows: readonly VerlPromptRow[]) {
  return [
    { name: "data_source", data: rows.map((row) => row.data_source) },
    { name: "agent_name", data: rows.map((row) => row.agent_name) },
    { name: "prompt", data: rows.map((row) => row.prompt) },
    { name: "ability", data: rows.map((row) => row.ability) },
    { name: "reward_model", data: rows.map((row) => row.reward_model) },
    { name: "extra_info", data: rows.map((row) => ({ ...row.extra_info, index: BigInt(row.extra_info.index), environment_id: BigInt(row.extra_info.environment_id), seed: BigInt(row.extra_info.seed), interaction_kwargs: { ...row.extra_info.interaction_kwargs, seed: BigInt(row.extra_info.interaction_kwargs.seed), max_turns: BigInt(row.extra_info.interaction_kwargs.max_turns) } })) },
  ];
}
