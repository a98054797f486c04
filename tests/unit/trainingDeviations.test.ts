import { describe, expect, it } from "vitest";
import { describeTrainingDeviations } from "../../main/training/describeTrainingDeviations.js";
import { parseTrainingConfig } from "../../shared/trainingConfig.js";

const training = (block: Record<string, unknown>) => parseTrainingConfig("run.json", { every: 1, ...block });

describe("training-step deviations (badges)", () => {
  it("names only LoRA for the defaults, and each other deviation by its key", () => {
    expect(describeTrainingDeviations(undefined)).toEqual([]);
    expect(describeTrainingDeviations(training({}))).toEqual(["deviation: LoRA rank 32 at lr 0.000001 (reference: every weight at 1e-6; its LoRA launcher: rank 32 at 1e-6)"]);
    const all = describeTrainingDeviations(training({ samplesPerStep: 8, lossAggregation: "token", logprobs: "sampling", rolloutTemperature: 0.6, weightDecay: 0, tisCap: 5, klCoef: 0.01 }));
    expect(all.slice(1)).toEqual([
      "deviation: several optimiser steps per round",
      "deviation: token-mean loss",
      "deviation: sampling-transform log-probs",
      "deviation: log-prob temperature 0.6",
      "deviation: optimiser settings",
      "deviation: clip / importance-sampling cap",
      "deviation: KL 0.01 (recipe: 0)",
    ]);
  });

  it("takes the tool-use recipe's KL 0.005 as the reference", () => {
    expect(describeTrainingDeviations(training({ klCoef: 0.005 }), "spade-tool-use")).toHaveLength(1);
    expect(describeTrainingDeviations(training({ klCoef: 0 }), "spade-tool-use")).toContain("deviation: KL 0 (recipe: 0.005)");
  });
});
