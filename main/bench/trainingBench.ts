import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRunConfig } from "../../shared/runConfig.js";
import { resourcePath } from "../paths.js";
import { RunController } from "../selfplay/RunController.js";
import { openDatabase } from "../store/openDatabase.js";
import { addEnvSetMembers } from "../store/queries/envSets.js";
import { getMetrics } from "../store/queries/metrics.js";
import { listTrainingRounds } from "../store/queries/trainingRounds.js";
import { createTrainingRound } from "../training/createTrainingRound.js";
import type { TrainingRound } from "../training/TrainingRound.js";
import type { BenchSection } from "./BenchSection.js";
import { benchModel } from "./benchModel.js";
import { trainerMemoryBench } from "./trainerMemoryBench.js";
import { measureQuantisation } from "./quantisationBench.js";

/** The round's phases, in seconds, as the round and the trainer record them. */
const phases = {
  batchSeconds: "build and write the batch",
  releaseSeconds: "release the inference model",
  loadSeconds: "trainer: load the base model",
  readSeconds: "trainer: read the batch",
  recomputeSeconds: "trainer: recompute log-probs before the steps (none with one step)",
  forwardBackwardSeconds: "trainer: forward and backward passes (and the log-prob check)",
  optimizerSeconds: "trainer: optimiser step and its state",
  writeSeconds: "trainer: write the adapter",
  registerSeconds: "install and register the adapter",
  reloadSeconds: "load the model back with the adapter",
} as const;

/**
 * One iteration of a real run on stories260K (fixed pool of the story-word environment, 2 x 16
 * one-turn plays) followed by its training round with the "gguf" trainer on CPU: training tokens
 * per second, the round's wall time, the iteration's generation time, their ratio
 * (`trainingShare`), where the round's time goes (`breakdown`; the trainer's start-up happens
 * before rollout 0 and is reported beside it), and the trainer's recomputed-vs-recorded log-prob
 * agreement; then random-weight models of about 10M, 50M and 200M parameters: trained tokens/s and
 * peak memory measured and predicted (trainerMemoryBench); then, under `quantisation`, the
 * agreement per tensor type and the training speed of quantised models (quantisationBench.ts).
 */
export const trainingBench: BenchSection = {
  name: "training",
  async run(log) {
    const model = benchModel();
    if (!model) throw new Error("no bench model: set SPADE_BENCH_MODEL or put stories260K.gguf in ../shared/models");
    const result = await measureStoriesRound(model, log);
    const randomModels = await trainerMemoryBench();
    const gb = (bytes: number | null) => `${((bytes ?? Number.NaN) / 1e9).toFixed(2)} GB`;
    for (const row of randomModels) log(row.error ?? `training ${row.label}: ${(row.trainedTokensPerSec ?? Number.NaN).toFixed(1)} trained tok/s, peak ${gb(row.measuredPeakBytes)} measured vs ${gb(row.predictedPeakBytes)} predicted`);
    return { ...result, randomModels, quantisation: await measureQuantisation(model, log) };
  },
};

/** One iteration of a run on `model` and its training round: the round's cost against the rollout's generation time, and where it goes. */
export async function measureStoriesRound(model: string, log: (line: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), "spade-bench-training-"));
  const db = openDatabase(join(dir, "bench.sqlite"));
  try {
    const code = readFileSync(resourcePath("environments", "story_word.py"), "utf8");
    addEnvSetMembers(db, "bench-words", [{ code, source: "bench", skill: "Storytelling" }, { code: code.replace('WORD = "the"', 'WORD = "was"'), source: "bench", skill: "Storytelling" }]);
    const config = parseRunConfig(
      {
        db: join(dir, "bench.sqlite"), seed: 7, iterations: 1, envsPerIteration: 2, plays: 16, hintPlays: 0, maxTurns: 1, canary: false,
        backend: { kind: "llama", modelPath: model, gpu: false, threads: 1, contextSize: 512, sequences: 1 },
        corpus: null,
        designer: { kind: "fixed", set: "bench-words" },
        memory: { enabled: false, novelty: false },
        // stories260K never ends a reply by itself: without a stop every reply would be cut off and score 0.
        agent: { temperature: 1, maxTokens: 16, stop: ["."] },
        // the trainer gets the rollout's CPU budget: one thread, as the backend (no OpenMP threads spinning on a loaded machine)
        training: { every: 1, trainer: "gguf", roles: ["agent"], threads: 1 },
      },
      "training bench",
    );
    let step: TrainingRound | null = null;
    const controller = new RunController({ db, createTraining: (c, parts) => (step = createTrainingRound(c, parts)) });
    const { runId } = await controller.start(config);
    const status = await controller.wait(runId);
    if (status !== "completed") throw new Error(`the bench run ended ${status}`);
    const [round] = listTrainingRounds(db, runId);
    if (!round || round.status !== "completed") throw new Error(`the bench round ended ${round?.status ?? "missing"}: ${String(round?.metrics.reason ?? "")}`);
    const metrics = round.metrics as { tokens?: number; seconds?: number; wallSeconds?: number; mismatch?: { maxAbsDiff?: number } } & Partial<Record<keyof typeof phases | "trainerSeconds", number>>;
    const generationSeconds = Number(getMetrics(db, runId)[0]?.metrics.wallTimeMs ?? 0) / 1000;
    const roundSeconds = (round.finishedAt! - round.startedAt) / 1000;
    const result = {
      tokensPerSec: (metrics.tokens ?? 0) / Math.max(metrics.seconds ?? 0, 1e-9),
      roundSeconds,
      generationSeconds,
      trainingShare: roundSeconds / Math.max(generationSeconds, 1e-9),
      logprobMaxAbsDiff: metrics.mismatch?.maxAbsDiff ?? Number.NaN,
      startupSeconds: (step as TrainingRound | null)?.startupSeconds ?? Number.NaN,
      breakdown: roundBreakdown(metrics, roundSeconds),
    };
    log(`training: ${result.tokensPerSec.toFixed(0)} trained tok/s, round ${roundSeconds.toFixed(2)} s vs generation ${generationSeconds.toFixed(2)} s (share ${result.trainingShare.toFixed(2)}), trainer start-up before rollout 0 ${result.startupSeconds.toFixed(2)} s, log-prob max |diff| ${result.logprobMaxAbsDiff}`);
    for (const [key, seconds] of Object.entries(result.breakdown)) log(`  ${key.padEnd(18)} ${seconds.toFixed(3)} s  ${phases[key as keyof typeof phases] ?? "the rest (protocol, events, database)"}`);
    return result;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seconds per phase of the round, and what the phases leave unaccounted for ("otherSeconds"). */
export function roundBreakdown(metrics: Partial<Record<string, unknown>>, roundSeconds: number): Record<string, number> {
  const breakdown: Record<string, number> = {};
  for (const key of Object.keys(phases)) {
    const value = metrics[key];
    if (typeof value === "number") breakdown[key] = value;
  }
  breakdown.otherSeconds = Math.max(0, roundSeconds - Object.values(breakdown).reduce((sum, value) => sum + value, 0));
  return breakdown;
}
