// The README's quick start, run as written (issue 35) and the proof that the loop learns (issue 10
// §4) in one run: the README's commands with its workspace folder swapped for a temporary one, on
// resources/examples/quick-start.json unchanged (the model its `hf:` URI names is put where the
// download would put it, since the hub cannot be reached here: stories260K, the same file). The real
// sandbox, stories260K through node-llama-cpp, the "gguf" trainer after every iteration and its
// adapters loaded back. The stored per-iteration win rate must rise beyond chance (first two
// iterations against the last two), the run page's chart must draw that series, and held-out plays
// on unseen seeds before and after must rise too.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { Workbench } from "../../main/api/Workbench.js";
import { LlamaBackend } from "../../main/llm/llama/LlamaBackend.js";
import { runPlays } from "../../main/rollout/runPlays.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getAdapter } from "../../main/store/queries/adapters.js";
import { listEnvSetMembers } from "../../main/store/queries/envSets.js";
import { getMetrics } from "../../main/store/queries/metrics.js";
import { listTrainingRounds } from "../../main/store/queries/trainingRounds.js";
import { pythonHasTorch } from "../../main/training/resolveTrainerPython.js";
import { buildRunReport } from "../../main/selfplay/buildRunReport.js";
import { coreMetrics, preferredMetrics } from "../../renderer/src/lib/charts/metricLabels.js";
import { prepareMetricChart } from "../../renderer/src/lib/charts/prepareMetricChart.js";
import { metricNames, prepareMetricSeries, runSeriesKey } from "../../renderer/src/lib/charts/prepareMetricSeries.js";
import { prepareRunCharts, storedHintPlays } from "../../renderer/src/features/runs/lib/prepareRunCharts.js";
import { storedDesignerKind } from "../../shared/storedDesignerKind.js";
import { createTestPool } from "../support/sandboxTestPool.js";
import { oneSidedTwoProportionZ, type Proportion } from "../support/twoProportionTest.js";

const python = "/usr/bin/python3";
const hasTorch = pythonHasTorch(python);
if (!hasTorch) console.warn(`quickStartLearns skipped: ${python} cannot import torch (apt-get install python3-torch)`);
const root = resolve(import.meta.dirname, "../..");
const cli = join(root, "out", "engine", "main", "cli", "spade.js");
const stories = resolve(root, "../shared/models/stories260K.gguf");
const example = join(root, "resources", "examples", "quick-start.json");
/** Held-out plays per environment and model: seeds no run play uses. */
const heldOut = 100;

/** The quick start's block of the README: the lines from `npm ci` to `npm start`. */
function quickStartLines(): string[] {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("README: no sh block under ## Quick start");
  return block.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim()).filter(Boolean);
}

let dir: string;
let workspace: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-quick-start-"));
  workspace = join(dir, "spade-workbench");
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs one of the README's `npx spade ...` lines through the built CLI, ~/.spade-workbench being `workspace`. */
async function runReadmeLine(line: string): Promise<{ stdout: string; stderr: string }> {
  const words = line.split(/\s+/).slice(2).map((word) => word.replace(/^~\/\.spade-workbench/, workspace)).map((word) => (word.startsWith("resources/") ? join(root, word) : word));
  // SPADE_PYTHON: the trainer's interpreter as this machine has it (a managed ~/.spade-workbench/python would win otherwise).
  return promisify(execFile)(process.execPath, [cli, ...words], { cwd: root, env: { ...process.env, SPADE_PYTHON: python }, maxBuffer: 64 * 1024 * 1024 });
}

describe("the shipped quick-start config", () => {
  it("is a valid run config whose every deviation is a named key with its badge", async () => {
    const raw = JSON.parse(readFileSync(example, "utf8")) as Record<string, unknown>;
    const config = parseRunConfig(raw, example);
    expect(config.designer).toMatchObject({ kind: "fixed", set: "story-words" });
    expect(config.db).toBe("workspace.sqlite");
    expect(config.backend).toMatchObject({ kind: "llama", modelsDir: "models" });
    expect((config.backend as { modelPath: string }).modelPath).toBe("hf:ggml-org/models-moved/tinyllamas/stories260K.gguf");
    const { describeAblations } = await import("../../main/selfplay/describeAblations.js");
    expect(describeAblations(config)).toEqual([
      'baseline: static pool "story-words"',
      'deviation: agent replies stop at "."',
      "deviation: LoRA rank 4 at lr 0.006 (reference: every weight at 1e-6; its LoRA launcher: rank 32 at 1e-6)",
    ]);
  });
});

describe.skipIf(!hasTorch || !existsSync(cli) || !existsSync(stories))("the README's quick start: stories260K learns", () => {
  it("follows the README to a run whose stored win rate rises beyond chance, drawn by the run page's chart", async () => {
    const lines = quickStartLines();
    expect(lines[0]).toBe("npm ci");
    expect(lines.at(-1)).toMatch(/^npm start\b/);
    const copy = lines.find((line) => line.startsWith("cp "));
    expect(copy, "the README copies the config").toBe("cp resources/examples/quick-start.json resources/examples/run-config.schema.json ~/.spade-workbench/");
    mkdirSync(workspace, { recursive: true });
    for (const file of copy!.split(" ").slice(1, -1)) copyFileSync(join(root, file), join(workspace, file.split("/").at(-1)!));
    // The model where `spade run` downloads it: the config's modelsDir, under node-llama-cpp's file name for
    // the URI (hf_<owner>_<repo>_<folders>_<file>). A wrong name would send the run to the hub, which fails offline.
    const config = parseRunConfig(JSON.parse(readFileSync(join(workspace, "quick-start.json"), "utf8")), "quick-start.json");
    mkdirSync(join(workspace, "models"));
    copyFileSync(stories, join(workspace, "models", "hf_ggml-org_models-moved_tinyllamas_stories260K.gguf"));

    const spadeLines = lines.filter((line) => line.startsWith("npx spade "));
    expect(spadeLines.map((line) => line.split(" ").slice(2, 4).join(" "))).toEqual(["envs import", "run --config"]);
    await runReadmeLine(spadeLines[0]!);
    const run = await runReadmeLine(spadeLines[1]!);
    const runId = Number(/^run (\d+) completed$/m.exec(run.stderr)?.[1]);
    expect(runId, run.stderr.slice(-2000)).toBeGreaterThan(0);

    const db: WritableDb = openDatabase(join(workspace, "workspace.sqlite"));
    let lastAdapter: string;
    try {
      expect(listEnvSetMembers(db, "story-words")).toHaveLength(2);
      const rounds = listTrainingRounds(db, runId);
      console.log(`round metrics: ${JSON.stringify(rounds.map(({ metrics: { batch: _batch, ...metrics } }) => metrics))}; iteration wall times (ms): ${getMetrics(db, runId).map((m) => m.metrics.wallTimeMs).join(", ")}`);
      expect(rounds.map((round) => round.status)).toEqual(Array(config.iterations).fill("completed"));
      for (const [i, round] of rounds.entries()) {
        expect(round.afterIteration).toBe(i);
        expect(round.parentAdapterId).toBe(i === 0 ? null : rounds[i - 1]!.adapterId);
        // The trainer recomputed the recorded behaviour log-probs: the same function as llama.cpp.
        expect((round.metrics.mismatch as { meanAbsDiff: number }).meanAbsDiff).toBeLessThan(1e-2);
      }
      // Every play after a round was sampled with that round's adapter, and the report says which.
      const report = buildRunReport(db, runId).runs[0]!;
      expect(report.status).toBe("completed");
      for (const env of report.environments.filter((e) => e.valid)) {
        const expected = env.iteration === 0 ? null : rounds[env.iteration - 1]!.adapterId;
        for (const episode of env.episodes) expect(episode.adapterId).toBe(expected);
      }
      lastAdapter = getAdapter(db, rounds.at(-1)!.adapterId!)!.path;
    } finally {
      db.close();
    }

    // The stored per-iteration win rates, as the API gives them to the run page, and its chart of them.
    const workbench = Workbench.open({ dbPath: join(workspace, "workspace.sqlite"), runtime: null, runControl: null, modelInsightsGpu: false });
    try {
      const detail = await workbench.api.getRun({ runId });
      expect(detail.ablations).toContain('deviation: agent replies stop at "."');
      const metrics = await workbench.api.getRunMetrics({ runId });
      expect(metrics.iterations.map((it) => it.iteration)).toEqual([...Array(config.iterations).keys()]);
      const counts: Proportion[] = metrics.iterations.map((it) => {
        const plays = it.values.episodes!;
        const wins = it.values.meanWinRate! * plays;
        // Every game has the same plays, so the mean of the games' win rates is wins / plays.
        expect(Math.abs(wins - Math.round(wins))).toBeLessThan(1e-9);
        return { wins: Math.round(wins), plays };
      });
      const pooled = (part: Proportion[]) => ({ wins: part.reduce((sum, c) => sum + c.wins, 0), plays: part.reduce((sum, c) => sum + c.plays, 0) });
      const first = pooled(counts.slice(0, 2));
      const last = pooled(counts.slice(-2));
      const z = oneSidedTwoProportionZ(first, last);
      console.log(`per-iteration wins: ${counts.map((c) => `${c.wins}/${c.plays}`).join(", ")}; first two ${first.wins}/${first.plays}, last two ${last.wins}/${last.plays}; z = ${z.z.toFixed(2)}, one-sided p = ${z.p.toExponential(2)}`);
      expect(last.wins / last.plays).toBeGreaterThan(first.wins / first.plays);
      expect(z.p).toBeLessThan(0.01);

      const plan = prepareRunCharts(metricNames([metrics], preferredMetrics, coreMetrics), storedDesignerKind(detail.config), storedHintPlays(detail.config));
      expect(plan.shown).toContain("meanWinRate");
      // No hinted plays in the quick start: no flat-zero regret tile, and the page says why.
      expect(plan.shown).not.toContain("meanRegret");
      expect(plan.hiddenNote).toContain("hintPlays 0");
      const series = [{ key: runSeriesKey(runId), label: `run ${runId}` }];
      const chart = prepareMetricChart("meanWinRate", prepareMetricSeries([metrics], "meanWinRate"), series);
      expect(chart.title).toBe("Mean win rate");
      expect(chart.rate).toBe(true);
      expect(chart.domain).toEqual([0, 1]);
      expect(chart.empty).toBeNull();
      expect(chart.rows.map((row) => row.iteration)).toEqual([...Array(config.iterations).keys()]);
      expect(chart.rows.map((row) => row[series[0]!.key])).toEqual(counts.map((c) => c.wins / c.plays));
    } finally {
      await workbench.close();
    }

    // Held-out plays on seeds no run play used, with the base model and with the last round's adapter.
    const games = ["story_word_the.py", "story_word_was.py"].map((file) => readFileSync(join(root, "resources/environments/story-words", file), "utf8"));
    const before = await heldOutWins(games, null, config);
    const after = await heldOutWins(games, lastAdapter!, config);
    const held = oneSidedTwoProportionZ(before, after);
    console.log(`held-out wins: base ${before.wins}/${before.plays}, after ${config.iterations} rounds ${after.wins}/${after.plays}; z = ${held.z.toFixed(2)}, one-sided p = ${held.p.toExponential(2)}`);
    expect(after.wins / after.plays).toBeGreaterThan(before.wins / before.plays);
    expect(held.p).toBeLessThan(0.01);
  }, 900_000);
});

/** Wins out of `heldOut` plays of each game, with the base model or an adapter, at the run's temperature, budget and stop. */
async function heldOutWins(games: string[], adapter: string | null, config: ReturnType<typeof parseRunConfig>): Promise<Proportion> {
  const sandbox = await createTestPool();
  const backend = await LlamaBackend.load({ model: stories, gpu: false, threads: 1, contextSize: 512, sequences: 1, lora: adapter ? [{ path: adapter }] : [] });
  let wins = 0;
  let plays = 0;
  try {
    for (const code of games) {
      await runPlays({
        open: () => sandbox.open(code),
        backend,
        specs: Array.from({ length: heldOut }, (_, i) => ({ hinted: false, playIndex: i, canary: false, seed: 900_000 + i })),
        hint: null,
        maxTurns: config.maxTurns,
        sampling: { temperature: config.agent.temperature, maxTokens: config.agent.maxTokens, stop: config.agent.stop ?? undefined },
        onEpisode: (episode) => {
          plays++;
          if (episode.return > 0) wins++;
        },
      });
    }
  } finally {
    await backend.dispose();
    await sandbox.dispose();
  }
  return { wins, plays };
}
