// The reference recipes (spade-rl/spade launchers) as this project's defaults. A run config names
// one with `recipe`; every key it leaves out takes the recipe's value. Numbers come from
// `cmd/games/train_spade_30b.sh` (and 4b), `cmd/games/train_spade_8b.sh` and
// `cmd/tool_use/_train_spade_blend.sh` (see the README's parity table).

import type { ThinkingMode } from "./llm.js";
import { recipeGameSkills, recipeToolUseSkills } from "./skills.js";

export const recipeNames = ["spade-games", "spade-tool-use", "spade-games-8b"] as const;
export type RecipeName = (typeof recipeNames)[number];

/** The values a recipe gives the keys a config leaves out. */
export interface RecipeDefaults {
  seed: number;
  iterations: number;
  envsPerIteration: number;
  plays: number;
  hintPlays: number;
  maxTurns: number;
  regenerationInterval: number;
  /** null: every configured skill in every regeneration. */
  skillsPerRegen: number | null;
  designer: { attempts: number; temperature: number; maxTokens: number; skills: string[]; difficulty: string; toolUse: boolean };
  corpusMaxWords: number;
  reward: { proposerDelay: number; scale: number };
  agent: { temperature: number; topP: number; topK: number; maxTokens: number };
  hint: { temperature: number; maxTokens: number };
  /** Thinking per role (the launchers' `--spade-env-enable-thinking`, `--spade-actor-enable-thinking`; off otherwise). */
  thinking: { designer: ThinkingMode; agent: ThinkingMode; hint: ThinkingMode };
  /** The KL penalty of the recipe's training step (`--kl-loss-coef`), the default of `training.klCoef`. */
  klCoef: number;
}

const games: RecipeDefaults = {
  seed: 42,
  iterations: 400,
  envsPerIteration: 24,
  plays: 16,
  hintPlays: 16,
  maxTurns: 25,
  regenerationInterval: 4,
  skillsPerRegen: 3,
  designer: { attempts: 5, temperature: 0.6, maxTokens: 16384, skills: [...recipeGameSkills], difficulty: "medium", toolUse: false },
  corpusMaxWords: 6000,
  // The reference computes the scale as actor plays / designer samples x interval (192 / 24 x 4), capped at 50.
  reward: { proposerDelay: 4, scale: 32 },
  agent: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 8192 },
  hint: { temperature: 0.3, maxTokens: 4096 },
  thinking: { designer: "off", agent: "off", hint: "off" },
  klCoef: 0,
};

// The 8B games launcher: the games recipe with thinking on for the designer and the agent
// (`--spade-env-enable-thinking`, `ACTOR_THINKING=1`), designer replies of 20000 tokens and a KL
// penalty of 0.005 (low-variance estimator).
const games8b: RecipeDefaults = {
  ...games,
  designer: { ...games.designer, maxTokens: 20000 },
  thinking: { designer: "on", agent: "on", hint: "off" },
  klCoef: 0.005,
};

const toolUse: RecipeDefaults = {
  ...games,
  regenerationInterval: 8,
  skillsPerRegen: null,
  designer: { ...games.designer, skills: [...recipeToolUseSkills], toolUse: true },
  corpusMaxWords: 4000,
  // The reference computes the scale as actor plays / designer samples x interval, capped at 50: 8 x 8 = 64 -> 50.
  reward: { proposerDelay: 8, scale: 50 },
  hint: { temperature: 0.3, maxTokens: 2048 },
};

/** The defaults of a recipe. */
export function recipeDefaults(recipe: RecipeName): RecipeDefaults {
  return recipe === "spade-tool-use" ? toolUse : recipe === "spade-games-8b" ? games8b : games;
}
