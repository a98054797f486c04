import { describe, expect, it } from "vitest";
import { toWorkbenchEvent } from "../../main/api/toWorkbenchEvent.js";
import { RunProgress } from "../../main/cli/RunProgress.js";

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
    progress.handle({ type: "slotPhase", runId: 1, iteration: 0, slot: 1, slots: 2, phase: "playing" });
    progress.handle({ type: "iterationCompleted", runId: 1, iteration: 0, metrics: { validityRate: 1, wallTimeMs: 1500 } });
    expect(lines[0]).toBe("iteration 0 of 2 [##########----------] slot 1 of 2 playing\n");
    expect(lines[1]).toMatch(/^iteration 0 of 2 done: validity 100%/);
  });
});
