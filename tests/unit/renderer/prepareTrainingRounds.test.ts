import { describe, expect, it } from "vitest";
import type { RunTrainingView } from "../../../shared/api/trainingTypes.js";
import { prepareTrainingRounds } from "../../../renderer/src/features/runs/lib/prepareTrainingRounds.js";

const round = (r: number, after: number, status: "completed" | "rejected" | "failed", adapterId: number | null, parent: number | null, metrics: Record<string, number>) => ({
  round: r, afterIteration: after, status, adapterId, adapterName: adapterId === null ? null : `run-1-r${r}`, parentAdapterId: parent, metrics, reason: status === "failed" ? "the trainer failed" : null, startedAt: 0, finishedAt: 1,
});

const view: RunTrainingView = {
  runId: 1,
  rounds: [round(0, 0, "completed", 7, null, { loss: 0.5, kl: 0.01 }), round(1, 1, "rejected", 8, 7, { loss: 0.4 }), round(2, 2, "failed", null, 7, {})],
  iterations: [
    { iteration: 0, adapter: null, episodes: 8 },
    { iteration: 1, adapter: "run-1-r0.gguf", episodes: 8 },
    { iteration: 2, adapter: "run-1-r0.gguf", episodes: 6 },
    { iteration: 2, adapter: null, episodes: 2 },
  ],
};

describe("training rounds card", () => {
  it("puts each round on the iteration it trained after, with the adapters that played each iteration", () => {
    const data = prepareTrainingRounds(view);
    expect(data.axis.map((row) => [row.iteration, row.adapters, row.episodes, row.round?.status])).toEqual([
      [0, [null], 8, "completed"],
      [1, ["run-1-r0.gguf"], 8, "rejected"],
      [2, ["run-1-r0.gguf", null], 8, "failed"],
    ]);
  });

  it("curves keep gaps as null and list only curves with values; lineage names parents", () => {
    const data = prepareTrainingRounds(view);
    expect(data.curves[1]).toMatchObject({ iteration: 1, loss: 0.4, kl: null });
    expect(data.curves[2]!.loss).toBeNull();
    expect(data.curveKeys).toEqual(["loss", "kl"]);
    expect(data.lineage).toEqual([
      { round: 0, adapterId: 7, adapterName: "run-1-r0", parentAdapterId: null, parentName: null, status: "completed" },
      { round: 1, adapterId: 8, adapterName: "run-1-r1", parentAdapterId: 7, parentName: "run-1-r0", status: "rejected" },
    ]);
  });
});
