// The reference recipes (spade-rl/spade launchers) as this project's defaults. A run config names
// one with `recipe`; every key it leaves out takes the recipe's value. Numbers come from
// `cmd/games/train_spade_30b.sh` (and 4b), `cmd/games/train_spade_8b.sh` and
// `cmd/tool_use/_train_spade_blend.sh` (see the README's parity table).

import type { ThinkingMode } from "./llm.js";
import { recipeGameSkills, recipeToolUseSkills } from "./skills.js";
import type { RecipeTrainingDefaults } from "./trainingConfig.js";

export const recipeNames = ["spade-games", "spade-tool-use", "spade-tool-use-4b", "spade-games-8b", "fixed-rlve", "fixed-rlve-8b"] as const;
export type RecipeName = (typeof recipeNames)[number];

/** The values a recipe gives the keys a config leaves out. */
export interface RecipeDefaults {
  seed: number;
  iterations: number;
  envsPerIteration: number;
  /** Agent samples of one training step (the reference's global batch size). */
  actorBatch: number;
  /** null: ceil(actorBatch / valid games) unhinted plays per game per rollout, as the reference sizes them. */
  plays: number | null;
  hintPlays: number;
  maxTurns: number;
  regenerationInterval: number;
  /** null: every configured skill in every regeneration. */
  skillsPerRegen: number | null;
  designer: { attempts: number; temperature: number; topP: number; topK: number; maxTokens: number; skills: string[]; difficulty: string; toolUse: boolean };
  corpusMaxWords: number;
  /** "auto": the reference's per-step scale, (actor samples / designer samples) x regeneration interval, capped at 50. `kind`: the launcher's `--spade-env-reward-variant` (blend, or `regret_based` as "regret"). */
  reward: { kind: "blend" | "regret"; proposerDelay: number; scale: number | "auto" };
  /** `maskMalformedToolCalls`: the tool-use launcher's SPADE_MASK_MALFORMED_TOOLCALL. */
  agent: { temperature: number; topP: number; topK: number; maxTokens: number; maskMalformedToolCalls: boolean };
  hint: { temperature: number; maxTokens: number };
  /** Training inside the run: the recipe trains after every rollout with the built-in GGUF trainer; these hyperparameters differ from the trainer's defaults. */
  training: RecipeTrainingDefaults;
  /** Thinking per role (the launchers' `--spade-env-enable-thinking`, `--spade-actor-enable-thinking`; off otherwise). */
  thinking: { designer: ThinkingMode; agent: ThinkingMode; hint: ThinkingMode };
}

const games: RecipeDefaults = {
  seed: 42,
  iterations: 400,
  envsPerIteration: 24,
  actorBatch: 192,
  plays: null,
  hintPlays: 16,
  maxTurns: 25,
  regenerationInterval: 4,
  skillsPerRegen: 3,
  designer: { attempts: 5, temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 16384, skills: [...recipeGameSkills], difficulty: "medium", toolUse: false },
  corpusMaxWords: 6000,
  // The reference computes the scale per step as actor samples / designer samples x interval (192 / 24 x 4 = 32 with every game valid), capped at 50.
  reward: { kind: "blend", proposerDelay: 4, scale: "auto" },
  agent: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 8192, maskMalformedToolCalls: false },
  hint: { temperature: 0.3, maxTokens: 4096 },
  training: { hyper: {}, compactFilter: false },
  thinking: { designer: "off", agent: "off", hint: "off" },
};

// The 8B games launcher: the games recipe with thinking on for the designer and the agent
// (`--spade-env-enable-thinking`, `ACTOR_THINKING=1`), designer replies of 20000 tokens and a KL
// penalty of 0.005 (low-variance estimator).
const games8b: RecipeDefaults = {
  ...games,
  designer: { ...games.designer, maxTokens: 20000 },
  thinking: { designer: "on", agent: "on", hint: "off" },
  training: { hyper: { klCoef: 0.005 }, compactFilter: false },
};

const toolUse: RecipeDefaults = {
  ...games,
  regenerationInterval: 8,
  skillsPerRegen: null,
  designer: { ...games.designer, skills: [...recipeToolUseSkills], toolUse: true },
  corpusMaxWords: 4000,
  agent: { ...games.agent, maskMalformedToolCalls: true },
  // The same per-step scale: 8 x 8 = 64 -> capped at 50 with every game valid.
  reward: { kind: "blend", proposerDelay: 8, scale: "auto" },
  hint: { temperature: 0.3, maxTokens: 2048 },
  // The tool-use launcher's KL penalty (low-variance estimator) and compact filter.
  training: { hyper: { klCoef: 0.005 }, compactFilter: true },
};

// The paper's strongest baseline (`cmd/games/train_fixed_rlve_*.sh`): RLVE's problems, a fresh
// problem for each environment every rollout, 16 plays sharing it, no hints (no designer side), the
// agent sampled at temperature 1.0. The environments of a rollout: see `fixedEnvironmentCount`
// (16 with official16, 20 with "all").
const fixedRlve: RecipeDefaults = {
  ...games,
  envsPerIteration: 16,
  // 16 environments x 16 plays: the launcher's global batch of 256 agent samples.
  actorBatch: 256,
  plays: 16,
  hintPlays: 0,
  regenerationInterval: 1,
  skillsPerRegen: null,
  reward: { kind: "blend", proposerDelay: 1, scale: "auto" },
  agent: { ...games.agent, temperature: 1.0 },
};

// The 4B tool-use arm (`cmd/tool_use/train_spade_4b.sh`), not the blend launcher the 8B and 30B arms
// share: 500 rollouts of 16 games, a global batch of 256 (so 16 plays a game), games regenerated
// and scored every 32 rollouts (`--spade-game-regeneration-interval 32`,
// `--spade-proposer-training-delay 32`), the `regret_based` designer reward, 4 hinted plays
// (`--spade-hint-plays-per-game 4`) with replies of 512 tokens, `--rollout-temperature 0.7` (the
// log-probs of the gradient; the agent still samples at 0.6), KL 0.005 (low-variance estimator),
// the compact filter and the masking of malformed tool calls (`SPADE_MASK_MALFORMED_TOOLCALL=1`).
const toolUse4b: RecipeDefaults = {
  ...toolUse,
  iterations: 500,
  envsPerIteration: 16,
  actorBatch: 256,
  hintPlays: 4,
  regenerationInterval: 32,
  reward: { kind: "regret", proposerDelay: 32, scale: "auto" },
  hint: { temperature: 0.3, maxTokens: 512 },
  training: { hyper: { klCoef: 0.005, rolloutTemperature: 0.7 }, compactFilter: true },
};

// The 8B RLVE launcher (`cmd/games/train_fixed_rlve_8b.sh`): the same, with
// `--apply-chat-template-kwargs '{"enable_thinking":true}'` (KL stays 0.00 there).
const fixedRlve8b: RecipeDefaults = { ...fixedRlve, thinking: { designer: "off", agent: "on", hint: "off" } };

const byName: Record<RecipeName, RecipeDefaults> = {
  "spade-games": games,
  "spade-tool-use": toolUse,
  "spade-tool-use-4b": toolUse4b,
  "spade-games-8b": games8b,
  "fixed-rlve": fixedRlve,
  "fixed-rlve-8b": fixedRlve8b,
};

/** The defaults of a recipe. */
export function recipeDefaults(recipe: RecipeName): RecipeDefaults {
  return byName[recipe];
}

/** Whether a recipe is one of the fixed-RLVE launchers (a library run, no designer side). */
export function isFixedRlveRecipe(recipe: RecipeName): boolean {
  return recipe === "fixed-rlve" || recipe === "fixed-rlve-8b";
}

/**
 * Environments a fixed-environment rollout plays, as `spade/slime/fixed_env_rollout.py` sizes
 * them: it asks for `int(global_batch_size * 1.25) + 2` trajectories ("overprovision by 25%"),
 * `num_envs = num_trajectories // trajectories_per_env` environments
 * (`fixed_env_orchestrator.py` `collect_trajectories_async`), all of the set when it is no larger
 * (`SlidingWindowController.select_environments`). With 256 and 16 plays: 20, so official16
 * plays its 16 (256 plays) and "all" 20 (320 plays, all fed to the controller, 256 trained).
 * `setSize` null: a set larger than any rollout (RLVE's "all").
 */
export function fixedEnvironmentCount(actorBatch: number, plays: number, setSize: number | null): number {
  const wanted = Math.max(1, Math.floor((Math.floor(actorBatch * 1.25) + 2) / plays));
  return setSize === null ? wanted : Math.min(wanted, setSize);
}
