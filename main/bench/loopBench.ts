import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRunConfig } from "../../shared/runConfig.js";
import { SandboxPool } from "../sandbox/SandboxPool.js";
import { SelfPlayLoop } from "../selfplay/SelfPlayLoop.js";
import { openDatabase } from "../store/openDatabase.js";
import { createRun } from "../store/queries/runs.js";
import type { BenchSection } from "./BenchSection.js";
import { benchEnvironmentCode, benchGuess } from "./benchEnvironment.js";
import { requestRole, ScriptedBackend } from "./ScriptedBackend.js";

const iterations = 2;
const envsPerIteration = 5;

/**
 * The engine's own cost per environment, with a model that answers instantly: designer reply
 * parsing, validation in the sandbox, hint, 8 plays (a canary among them) + 8 hinted plays of 5 turns,
 * statistics, memory and SQLite storage, on a real workspace file. Every iteration regenerates
 * (regenerationInterval 1) so each one designs `envsPerIteration` environments.
 */
export const loopBench: BenchSection = {
  name: "loop",
  async run(log) {
    const dir = mkdtempSync(join(tmpdir(), "spade-bench-loop-"));
    const code = benchEnvironmentCode();
    const backend = new ScriptedBackend((request) => {
      const role = requestRole(request);
      if (role === "designer" || role === "repair") return `Here it is.\n\`\`\`python\n${code}\`\`\`\n`;
      if (role === "hint") return "Use each answer to rule digits out.";
      return benchGuess(request.messages.filter((message) => message.role === "assistant").length);
    }, 2);
    const pool = await SandboxPool.create({ size: 2 });
    try {
      const config = parseRunConfig(
        {
          db: join(dir, "bench.sqlite"), seed: 1, iterations, envsPerIteration, plays: 8, hintPlays: 8, maxTurns: 5, regenerationInterval: 1,
          backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null, training: null,
        },
        "loop bench",
      );
      const db = openDatabase(config.db);
      const run = createRun(db, { config, seed: config.seed });
      const start = performance.now();
      await new SelfPlayLoop(run.id, config, { db, backend, pool, corpus: null }).run();
      const minutes = (performance.now() - start) / 60_000;
      db.close();
      const envsPerMinute = (iterations * envsPerIteration) / minutes;
      log(`loop: ${iterations * envsPerIteration} environments in ${(minutes * 60).toFixed(1)} s: ${envsPerMinute.toFixed(0)} environments/minute`);
      return { envsPerMinute };
    } finally {
      await pool.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
