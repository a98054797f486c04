import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { RunProgressTracker } from "../../main/selfplay/RunProgressTracker.js";

const config = parseRunConfig(
  { db: "x.sqlite", seed: 1, iterations: 3, envsPerIteration: 2, plays: 2, hintPlays: 1, maxTurns: 2, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null },
  "test config",
);

describe("RunProgressTracker", () => {
  it("counts designs and plays of the current rollout, then the training round's steps and loss", () => {
    let now = 1000;
    const tracker = new RunProgressTracker(config, () => now);
    expect(tracker.snapshot()).toMatchObject({ iteration: 0, iterations: 3, phase: "starting", etaMs: null });
    tracker.handle({ type: "iterationStarted", runId: 1, iteration: 0, iterations: 3 });
    tracker.handle({ type: "slotPhase", runId: 1, iteration: 0, slot: 0, slots: 2, phase: "designing" });
    tracker.handle({ type: "environmentAdded", runId: 1, iteration: 0, slot: 0, environmentId: 1, valid: true, className: "A" });
    expect(tracker.snapshot().units).toEqual([
      { name: "designed", done: 1, total: 2 },
      { name: "played", done: 0, total: 6 },
    ]);
    tracker.handle({ type: "environmentAdded", runId: 1, iteration: 0, slot: 1, environmentId: 2, valid: false, className: null });
    // Every slot has its game and one is invalid: only the valid one plays (2 plain + 1 hinted).
    tracker.handle({ type: "slotPhase", runId: 1, iteration: 0, slot: 0, slots: 2, phase: "playing" });
    now += 3000;
    tracker.handle({ type: "episodeFinished", runId: 1, environmentId: 1, hinted: false, playIndex: 0, return: 1, error: null });
    const playing = tracker.snapshot();
    expect(playing.phase).toBe("playing");
    expect(playing.units).toContainEqual({ name: "played", done: 1, total: 3 });
    // 1 of 3 plays in 3 s: this rollout takes about 9 s (6 s left) and two more follow.
    expect(playing.etaMs).toBe(6000 + 2 * 9000);
    tracker.handle({ type: "trainingProgress", runId: 1, round: 0, phase: "training", step: 2, steps: 8, loss: 0.5 });
    const training = tracker.snapshot();
    expect(training.phase).toBe("training");
    expect(training.training).toEqual({ round: 0, phase: "training", step: 2, steps: 8, loss: 0.5 });
    expect(training.units).toContainEqual({ name: "training steps", done: 2, total: 8 });
  });

  it("estimates the time left from whole rollouts once one has ended", () => {
    let now = 0;
    const tracker = new RunProgressTracker(config, () => now);
    tracker.handle({ type: "iterationStarted", runId: 1, iteration: 0, iterations: 3 });
    now = 10_000;
    tracker.handle({ type: "iterationStarted", runId: 1, iteration: 1, iterations: 3 });
    now = 14_000;
    expect(tracker.snapshot().etaMs).toBe(6000 + 10_000);
    const before = tracker.changes;
    tracker.handle({ type: "environmentScored", runId: 1, environmentId: 1, winRate: 1, regret: 0, designerReward: 0 });
    expect(tracker.changes).toBe(before); // not progress
  });
});
