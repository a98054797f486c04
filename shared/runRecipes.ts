// The reference recipes (spade-rl/spade launchers) as this project's defaults. A run config names
// one with `recipe`; every key it leaves out takes the recipe's value. Numbers come from
// `cmd/games/train_spade_*.sh` and `cmd/tool_use/_train_spade_blend.sh` (see the README's parity table).

import { recipeGameSkills, recipeToolUseSkills } from "./skills.js";

export const recipeNames = ["spade-games", "spade-tool-use", "fixed-rlve"] as const;
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

// The paper's strongest baseline (`cmd/games/train_fixed_rlve_*.sh`): RLVE's problems, 16
// environments per rollout, a fresh problem for each every rollout, 16 plays sharing it, no hints
// (no designer side), the agent sampled at temperature 1.0.
const fixedRlve: RecipeDefaults = {
  ...games,
  envsPerIteration: 16,
  plays: 16,
  hintPlays: 0,
  regenerationInterval: 1,
  skillsPerRegen: null,
  reward: { proposerDelay: 1, scale: 32 },
  agent: { ...games.agent, temperature: 1.0 },
};

/** The defaults of a recipe. */
export function recipeDefaults(recipe: RecipeName): RecipeDefaults {
  return recipe === "spade-tool-use" ? toolUse : recipe === "fixed-rlve" ? fixedRlve : games;
}
