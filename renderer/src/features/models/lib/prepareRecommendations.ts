import { recommendationFits, type RecommendedModel } from "../../../../../shared/recommendedModels.js";
import { trainingMemoryDevice } from "../../../../../shared/trainingMemory.js";

export interface RecommendationRow {
  model: RecommendedModel;
  /** One entry per quantisation: its name, download size, and what it does on this machine. */
  quantisations: Array<{ name: string; uri: string; fileGb: number; verdict: "plays and trains" | "plays" | "too big" | "checking…"; playGb: number; trainGb: number | null }>;
}

/**
 * Each listed model's quantisations with whether they play and train in `memoryBytes` (this
 * machine's trainer device, of `deviceKind`: "cuda", "cpu", ...), training predicted by the
 * trainer's memory model with the default settings; null memory: unknown, every verdict from the
 * GPU the model is picked for. While this machine is being checked (`checking`) no verdict is given.
 */
export function prepareRecommendations(models: readonly RecommendedModel[], memoryBytes: number | null, deviceKind: string | null = null, checking = false): RecommendationRow[] {
  const device = trainingMemoryDevice(memoryBytes === null ? null : deviceKind);
  return models.map((model) => ({
    model,
    quantisations: recommendationFits(model, memoryBytes ?? model.memoryGb * 2 ** 30, { device }).map((fit) => ({
      name: fit.quantisation,
      uri: fit.uri,
      fileGb: fit.fileBytes / 1e9,
      verdict: checking ? "checking…" : fit.plays && fit.trains ? "plays and trains" : fit.plays ? "plays" : "too big",
      playGb: fit.playBytes / 2 ** 30,
      trainGb: fit.trainBytes === null ? null : fit.trainBytes / 2 ** 30,
    })),
  }));
}
