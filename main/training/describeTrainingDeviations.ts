import { recipeDefaults, type RecipeName } from "../../shared/runRecipes.js";
import { defaultTrainingHyper, type TrainingConfig } from "../../shared/trainingConfig.js";

/** The KL coefficient of a recipe's launcher (games: none; tool use and the 8B games run: 0.005, low-variance estimator). */
const recipeKl = (recipe: RecipeName): number => recipeDefaults(recipe).training.hyper.klCoef ?? defaultTrainingHyper.klCoef;

/**
 * The deviations of a run's training step from the reference's (slime at the commit SPADE pins),
 * one badge each (README "Parity of the training step"). LoRA is always one: the reference
 * fine-tunes every weight.
 */
export function describeTrainingDeviations(training: TrainingConfig | null | undefined, recipe: RecipeName = "spade-games"): string[] {
  if (!training) return [];
  const hyper = training.hyper;
  // The paper's runs train every weight at 1e-6; the reference's LoRA launchers (cmd/tinker/*/train_spade_tinker.sh) rank 32 at 1e-6.
  const badges = [`deviation: LoRA rank ${hyper.rank} at lr ${hyper.learningRate} (reference: every weight at 1e-6; its LoRA launcher: rank 32 at 1e-6)`];
  if (hyper.samplesPerStep !== null || hyper.maxTokensPerBatch !== null || hyper.epochs !== 1) badges.push("deviation: several optimiser steps per round");
  if (hyper.lossAggregation !== "sample") badges.push("deviation: token-mean loss");
  if (hyper.logprobs !== "reference") badges.push("deviation: sampling-transform log-probs");
  const rolloutTemperature = recipeDefaults(recipe).training.hyper.rolloutTemperature ?? defaultTrainingHyper.rolloutTemperature;
  if (hyper.rolloutTemperature !== rolloutTemperature) badges.push(`deviation: log-prob temperature ${hyper.rolloutTemperature}${rolloutTemperature === defaultTrainingHyper.rolloutTemperature ? "" : ` (recipe: ${rolloutTemperature})`}`);
  const optimizer = ["adamBeta1", "adamBeta2", "adamEps", "weightDecay", "gradClip"] as const;
  if (optimizer.some((key) => hyper[key] !== defaultTrainingHyper[key])) badges.push("deviation: optimiser settings");
  if (hyper.clipLow !== defaultTrainingHyper.clipLow || hyper.clipHigh !== defaultTrainingHyper.clipHigh || hyper.tisCap !== defaultTrainingHyper.tisCap) badges.push("deviation: clip / importance-sampling cap");
  if (hyper.klCoef !== recipeKl(recipe)) badges.push(`deviation: KL ${hyper.klCoef} (recipe: ${recipeKl(recipe)})`);
  return badges;
}
