import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";
import { recipeDefaults } from "../../shared/runRecipes.js";
import { describeTrainingDeviations } from "../training/describeTrainingDeviations.js";

type AblationFields = Pick<RunConfig, "designer" | "corpus" | "memory" | "reward"> & Partial<Pick<RunConfig, "recipe" | "hint" | "agent" | "training" | "validator">>;

/** Reward variants that are not in the reference, labelled as such. */
const projectRewardKinds: Partial<Record<RunConfig["reward"]["kind"], string>> = {
  azr: "azr (this project's addition)",
  rzero: "rzero (this project's addition)",
  variance: "learning potential + variance add-on",
};

/**
 * What a run's config switches off or changes relative to its SPADE recipe, in words for reports,
 * `spade compare` and the UI's badges: the ablations, then every deviation from the reference that
 * changes the science (each a named key that is off in the recipes).
 */
export function describeAblations(config: AblationFields): string[] {
  // A baseline has no designer side: the corpus, memory and designer reward do not apply to it.
  const baseline = describeBaseline(config);
  if (baseline) return [baseline, ...describeDeviations(config)];
  const ablations: string[] = [];
  if (config.corpus === null) ablations.push("no corpus");
  if (!config.memory.enabled) ablations.push("no memory");
  if (config.reward.kind !== recipeDefaults(config.recipe ?? "spade-games").reward.kind) ablations.push(`reward: ${projectRewardKinds[config.reward.kind] ?? config.reward.kind}`);
  if (config.training === null) ablations.push("collect only (no training)");
  return [...ablations, ...describeDeviations(config)];
}

/**
 * The fixed-environment baseline a run is (the paper compares SPADE against these), or null for a
 * SPADE run: a static pool of saved games, or an installed library's problems.
 */
export function describeBaseline(config: Pick<RunConfig, "designer">): string | null {
  const { designer } = config;
  if (designer.kind === "fixed") return `baseline: static pool "${designer.set}"`;
  if (designer.kind !== "library" || !designer.library) return null;
  const { kind, set, controller } = designer.library;
  const name = { rlve: "RLVE", gem: "GEM", "reasoning-gym": "reasoning-gym" }[kind];
  const which = Array.isArray(set) ? (set.length <= 3 ? set.join(", ") : `${set.length} environments`) : set;
  return `baseline: ${name} ${which}${kind === "rlve" ? ` (sliding window, ${controller.tauNum} plays at ${controller.tauAcc})` : ""}`;
}

/** The deviations from the reference recipe a config turns on, one badge each. */
export function describeDeviations(config: AblationFields): string[] {
  const deviations: string[] = [];
  const recipe = recipeDefaults(config.recipe ?? "spade-games");
  if (config.designer.repair) deviations.push("deviation: repair turns");
  if (config.memory.novelty) deviations.push("deviation: novelty gate on memory");
  if (config.hint?.leakCheck) deviations.push("deviation: hint leak check");
  if (config.hint?.useEnvHint) deviations.push("deviation: environment's own hint()");
  if (config.reward.timeoutInBlend) deviations.push("deviation: timeout penalty in blend");
  if (config.designer.randomDifficulty) deviations.push("deviation: random difficulty");
  if (config.validator?.strict) deviations.push("deviation: strict validator");
  if (config.agent?.stop) deviations.push(`deviation: agent replies stop at ${config.agent.stop.map((stop) => JSON.stringify(stop)).join(", ")}`);
  if (config.reward.scale !== "auto") deviations.push(`deviation: designer reward scale ${config.reward.scale}`);
  if (config.training && config.training.every !== 1) deviations.push(`deviation: training every ${config.training.every} rollouts`);
  if (config.training && !config.training.includeCanary) deviations.push("deviation: canary plays not trained");
  if (config.designer.kind === "llm" && JSON.stringify(config.designer.skills) !== JSON.stringify(recipe.designer.skills)) deviations.push("deviation: our skill list");
  deviations.push(...describeTrainingDeviations(config.training, config.recipe ?? "spade-games"));
  return deviations;
}

/** The ablations of a stored run config; a config this version cannot read names none. */
export function storedRunAblations(config: unknown): string[] {
  try {
    return describeAblations(parseRunConfig(config, "stored run config"));
  } catch {
    return [];
  }
}
