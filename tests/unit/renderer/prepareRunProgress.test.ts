import { describe, expect, it } from "vitest";
import { prepareRunProgress } from "../../../renderer/src/features/runs/lib/prepareRunProgress.js";
import { errorTitle } from "../../../renderer/src/lib/format/errorTitle.js";
import { formatDuration } from "../../../renderer/src/lib/format/formatNumber.js";

describe("prepareRunProgress", () => {
  it("says in one line what the run does, with unit counts, the training step and the time left", () => {
    const view = prepareRunProgress(
      {
        iteration: 1,
        iterations: 4,
        phase: "training",
        units: [{ name: "played", done: 120, total: 384 }, { name: "training steps", done: 2, total: 8 }],
        training: { round: 1, phase: "training", step: 2, steps: 8, loss: 0.12345 },
        etaMs: 200_000,
        updatedAt: 10_000,
      },
      20_000,
    );
    expect(view!.label).toBe("iteration 1 of 4 · training · played 120/384 · training steps 2/8 · training round 1 step 2/8 loss 0.1235 · about 3 min 10 s left");
    expect(view!.fraction).toBeCloseTo((1 + 120 / 384) / 4);
  });

  it("is null without progress, and leaves the time out until it can be measured", () => {
    expect(prepareRunProgress(null)).toBeNull();
    const starting = prepareRunProgress({ iteration: 0, iterations: 2, phase: "starting", units: [], training: null, etaMs: null, updatedAt: 0 }, 0);
    expect(starting).toEqual({ label: "iteration 0 of 2 · starting", fraction: 0 });
  });
});

describe("formatDuration", () => {
  it("reads as people read durations, never raw milliseconds", () => {
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(12_400)).toBe("12.4 s");
    expect(formatDuration(141_348)).toBe("2 min 21 s");
    expect(formatDuration(3_900_000)).toBe("1 h 05 min");
    expect(formatDuration(null)).toBe("–");
  });
});

describe("errorTitle", () => {
  it("leads an error box with plain words, never an internal class name", () => {
    expect(errorTitle("ModelDownloadError")).toBe("Download failed");
    expect(errorTitle("ApiInputError")).toBe("Invalid input");
    expect(errorTitle("TypeError")).toBe("Error");
    expect(errorTitle(undefined)).toBe("Error");
  });
});

describe("prepareRunProgress during the design phase", () => {
  it("moves while the designer writes the rollout's games, before any play", () => {
    const designing = (designed: number) =>
      prepareRunProgress({ iteration: 0, iterations: 2, phase: "designing", units: [{ name: "designed", done: designed, total: 4 }, { name: "played", done: 0, total: 64 }], training: null, etaMs: null, updatedAt: 0 }, 0)!.fraction!;
    expect(designing(0)).toBe(0);
    expect(designing(2)).toBeGreaterThan(0);
    expect(designing(4)).toBeGreaterThan(designing(2));
    // Designing is half a designing rollout, playing the other half: never past the rollout's end.
    expect(designing(4)).toBeCloseTo(0.5 / 2);
    const playing = prepareRunProgress({ iteration: 0, iterations: 2, phase: "playing", units: [{ name: "designed", done: 4, total: 4 }, { name: "played", done: 32, total: 64 }], training: null, etaMs: null, updatedAt: 0 }, 0)!;
    expect(playing.fraction).toBeCloseTo(0.75 / 2);
    // Every game invalid: nothing to play, the rollout is done.
    const none = prepareRunProgress({ iteration: 0, iterations: 2, phase: "scoring", units: [{ name: "designed", done: 4, total: 4 }, { name: "played", done: 0, total: 0 }], training: null, etaMs: null, updatedAt: 0 }, 0)!;
    expect(none.fraction).toBeCloseTo(1 / 2);
  });
});
