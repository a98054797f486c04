import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchSection } from "../bench/BenchSection.js";
import { openDatabase } from "../store/openDatabase.js";
import { insertEnvironment } from "../store/queries/environments.js";
import { insertEpisodesWithTurns, type NewTurn } from "../store/queries/episodes.js";
import { createRun } from "../store/queries/runs.js";
import { exportTrainingData } from "./exportTrainingData.js";

const environments = 100;
const playsPerEnvironment = 16;
const turnsPerPlay = 5;
const tokensPerTurn = 200;

/**
 * Training-data export speed: 100 environments x 16 plays x 5 turns (200 token ids and
 * probabilities per turn) stored in a real WAL database, then exported as grpo, trl-sft and
 * trl-kto in one pass (read, rebuild every turn's prompt, compute advantages, write, hash).
 */
export const exportBench: BenchSection = {
  name: "export",
  async run(log) {
    const dir = mkdtempSync(join(tmpdir(), "spade-export-bench-"));
    try {
      const db = openDatabase(join(dir, "bench.sqlite"));
      const run = createRun(db, { name: "bench", seed: 1 });
      for (let e = 0; e < environments; e++) {
        const environmentId = insertEnvironment(db, { runId: run.id, iteration: 0, slot: e, attempt: 0, source: "designer", skill: `skill ${e % 6}`, code: `class E${e}Env: pass`, valid: true });
        insertEpisodesWithTurns(
          db,
          Array.from({ length: playsPerEnvironment }, (_, p) => ({ episode: { runId: run.id, environmentId, hinted: false, playIndex: p, seed: p, return: (p * 7 + e) % 3 === 0 ? 1 : 0 }, turns: sampleTurns(e, p) })),
        );
      }
      const start = performance.now();
      const manifest = exportTrainingData(db, { formats: ["grpo", "trl-sft", "trl-kto"], outDir: join(dir, "out"), runId: run.id });
      const seconds = (performance.now() - start) / 1000;
      db.close();
      const plays = environments * playsPerEnvironment;
      const bytes = manifest.files.reduce((sum, file) => sum + file.bytes, 0);
      log(`export: ${plays} plays (${plays * turnsPerPlay} turns) to ${manifest.files.map((f) => `${f.path} ${f.lines}`).join(", ")} lines, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(2)} s`);
      return { playsPerSec: Math.round(plays / seconds), turnsPerSec: Math.round((plays * turnsPerPlay) / seconds), megabytesPerSec: Math.round((bytes / 1e6 / seconds) * 10) / 10 };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

function sampleTurns(environment: number, play: number): NewTurn[] {
  return Array.from({ length: turnsPerPlay }, (_, t) => ({
    messages: t === 0 ? [{ role: "system", content: "You play a text game. Answer with \\boxed{<action>}. ".repeat(8) }, { role: "user", content: `Maze ${environment}: exits north, east. `.repeat(4) }] : null,
    rawReply: `I should go north first (${play}). \\boxed{north ${t}}`,
    action: `north ${t}`,
    observation: `You walk north. The corridor continues (${t}). `.repeat(3),
    reward: t === turnsPerPlay - 1 ? 1 : 0,
    terminated: t === turnsPerPlay - 1,
    tokenIds: Array.from({ length: tokensPerTurn }, (_, i) => (i * 31 + t) % 32000),
    tokenProbs: Array.from({ length: tokensPerTurn }, (_, i) => 1 / (1 + ((i + t) % 7))),
  }));
}
