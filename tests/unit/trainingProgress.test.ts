import { describe, expect, it } from "vitest";
import { toWorkbenchEvent } from "../../main/api/toWorkbenchEvent.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { RunProgress } from "../../main/cli/RunProgress.js";
import type { LoopEvent } from "../../main/selfplay/LoopEvent.js";
import { RunProgressTracker } from "../../main/selfplay/RunProgressTracker.js";

/** A non-TTY stream that keeps what was written. */
function stream() {
  const lines: string[] = [];
  return { lines, out: { isTTY: false, write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream };
}

describe("training phase in the CLI and the workbench events", () => {
  it("the progress bar shows the round's step and loss, and a line when it ends", () => {
    const { lines, out } = stream();
    const progress = new RunProgress(out);
    progress.handle({ type: "trainingStarted", runId: 1, round: 0, afterIteration: 2, sequences: 24 });
    progress.handle({ type: "trainingProgress", runId: 1, round: 0, phase: "training", step: 1, steps: 4, loss: 0.12345 });
    progress.handle({ type: "trainingFinished", runId: 1, round: 0, status: "rejected", adapter: "run-1-r0", loss: 0.1, reason: "score below the parent's" });
    expect(lines).toEqual([
      "training round 1 after iteration 2: 24 sequences\n", // iterations numbered as stored
      "training round 1 [#####---------------] training step 1/4, loss 0.1235\n",
      "training round 1 rejected: run-1-r0, loss 0.1000 (score below the parent's)\n",
    ]);
  });

  it("training events reach the workbench as trainingRound events", () => {
    expect(toWorkbenchEvent({ type: "trainingProgress", runId: 2, round: 1, phase: "training", step: 3, steps: 8, loss: 0.5 } as never)).toEqual({ type: "trainingRound", runId: 2, round: 1, phase: "training", step: 3, steps: 8, loss: 0.5, status: "running" });
    expect(toWorkbenchEvent({ type: "trainingFinished", runId: 2, round: 1, status: "completed", adapter: "run-2-r1", loss: null, reason: null } as never)).toMatchObject({ type: "trainingRound", phase: "finished", status: "completed" });
  });
});

describe("one numbering for iterations", () => {
  it("the CLI names an iteration by the k the store and the report use", () => {
    const { lines, out } = stream();
    const progress = new RunProgress(out);
    progress.handle({ type: "iterationStarted", runId: 1, iteration: 0, iterations: 2 });
    progress.handle({ type: "progress", runId: 1, progress: { iteration: 0, iterations: 2, phase: "playing", units: [{ name: "played", done: 3, total: 6 }], rolloutFraction: 0.5, training: null, etaMs: 130_000, updatedAt: 0 } });
    progress.handle({ type: "iterationCompleted", runId: 1, iteration: 0, metrics: { validityRate: 1, wallTimeMs: 1500 } });
    expect(lines[0]).toBe("iteration 0 of 2 [##########----------] playing: played 3/6, about 2 min 10 s left\n");
    expect(lines[1]).toMatch(/^iteration 0 of 2 done: validity 100%/);
  });
});

describe("the CLI progress bar", () => {
  it("follows the completed designs and plays, whatever slot finishes first, never back, with their counts", () => {
    const config = parseRunConfig(
      { db: "x.sqlite", seed: 1, iterations: 2, envsPerIteration: 2, plays: 2, hintPlays: 1, maxTurns: 2, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null },
      "test config",
    );
    const { lines, out } = stream();
    const progress = new RunProgress(out);
    let now = 0;
    const tracker = new RunProgressTracker(config, () => now);
    const send = (event: LoopEvent) => {
      tracker.handle(event);
      progress.handle(event);
      progress.handle({ type: "progress", runId: 1, progress: tracker.snapshot() });
    };
    send({ type: "iterationStarted", runId: 1, iteration: 0, iterations: 2 });
    // The last slot is designed first: the bar moves on (it followed the slot index and ran back before).
    send({ type: "slotPhase", runId: 1, iteration: 0, slot: 1, slots: 2, phase: "designing" });
    send({ type: "environmentAdded", runId: 1, iteration: 0, slot: 1, environmentId: 2, valid: true, className: "B" });
    send({ type: "slotPhase", runId: 1, iteration: 0, slot: 0, slots: 2, phase: "designing" });
    send({ type: "environmentAdded", runId: 1, iteration: 0, slot: 0, environmentId: 1, valid: true, className: "A" });
    send({ type: "slotPhase", runId: 1, iteration: 0, slot: 0, slots: 2, phase: "playing" });
    for (let i = 0; i < 6; i++, now += 1000) send({ type: "episodeFinished", runId: 1, environmentId: 1 + (i % 2), hinted: i >= 4, playIndex: i, return: 1, error: null });
    const drawn = lines.filter((line) => line.startsWith("iteration 0 of 2 ["));
    // By hand: 2 designs + 2 games x (2 plays + 1 hinted) = 8 units.
    expect(drawn[0]).toBe("iteration 0 of 2 [--------------------] starting: designed 0/2, played 0/6\n");
    expect(drawn).toContain("iteration 0 of 2 [###-----------------] designing: designed 1/2, played 0/6\n"); // 1 of 8: 2.5 of 20
    // 4 of 8 units; 2 of 6 plays in 1 s: this rollout about 3 s (2 s left) and one more of 3 s.
    expect(drawn).toContain("iteration 0 of 2 [##########----------] playing: designed 2/2, played 2/6, about 5 s left\n");
    // The last play ends at 5 s: the rollout took 5 s and one more follows (about 5 s left).
    expect(drawn.at(-1)).toBe("iteration 0 of 2 [####################] playing: designed 2/2, played 6/6, about 5 s left\n");
    const filled = drawn.map((line) => line.split("#").length - 1);
    expect(filled).toEqual([...filled].sort((a, b) => a - b));
  });
});
