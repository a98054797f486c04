// The loop with the reference's validity rule and hint writer: real sandbox, real SQLite file,
// scripted model. A game that fails only this project's extra checks is played (its warnings
// stored) unless validator.strict; a hint writer that only ever replies with nothing is asked three
// times, recorded, and the game's regret is 0.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { validationWarnings } from "../../shared/environment.js";
import { ScriptedBackend, requestRole } from "../../main/bench/ScriptedBackend.js";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { buildRunReport } from "../../main/selfplay/buildRunReport.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { getEnvStats } from "../../main/store/queries/envStats.js";
import { getEnvironment, listEnvironments } from "../../main/store/queries/environments.js";
import { getHint } from "../../main/store/queries/hints.js";
import { createRun } from "../../main/store/queries/runs.js";
import { listRunNotes, listScheduledPlays } from "../../main/store/queries/schedule.js";
import { envCode, selfPlayReply } from "../support/selfPlayScript.js";

let dir: string;
let pool: SandboxPool;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-validity-"));
  pool = await SandboxPool.create({ size: 2 });
});
afterAll(async () => {
  await pool?.dispose();
});

/** The magic-word game whose solution() is empty: it breaks only the extra `solution` check. */
const emptySolution = envCode.magic.replace('return "\\\\boxed{open}"', 'return ""');

async function runLoop(name: string, overrides: Record<string, unknown>, script: (request: ChatRequest) => string) {
  const config = parseRunConfig(
    {
      db: join(dir, `${name}.sqlite`), seed: 7, iterations: 1, envsPerIteration: 1, plays: 2, hintPlays: 2, maxTurns: 3,
      designer: { attempts: 2 }, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null, ...overrides,
    },
    `${name}.json`,
  );
  const db = openDatabase(config.db);
  const run = createRun(db, { config, seed: config.seed });
  const backend = new ScriptedBackend(script, 2);
  const outcome = await new SelfPlayLoop(run.id, config, { db, backend, pool, corpus: null }).run();
  return { db, runId: run.id, backend, outcome };
}

const designs = (code: string) => (request: ChatRequest) => (requestRole(request) === "designer" ? "```python\n" + code + "```\n" : selfPlayReply(request));

describe("validity in the loop", () => {
  it("plays a game that fails only an extra check, with the warning stored and reported; validator.strict refuses it", async () => {
    expect(emptySolution).not.toBe(envCode.magic);
    const lenient = await runLoop("lenient", {}, designs(emptySolution));
    expect(lenient.outcome).toBe("completed");
    const [env] = listEnvironments(lenient.db, { runId: lenient.runId });
    const stored = getEnvironment(lenient.db, env!.id)!;
    expect([stored.attempt, stored.valid, stored.validationError]).toEqual([0, true, null]);
    expect(validationWarnings(stored.validation!).map((check) => check.name)).toEqual(["solution"]);
    expect(listScheduledPlays(lenient.db, env!.id).length).toBeGreaterThan(0);
    const reported = buildRunReport(lenient.db, lenient.runId).runs[0]!;
    expect(reported.ablations.filter((badge: string) => !badge.startsWith("deviation: LoRA"))).toEqual(["no corpus"]);
    expect(reported.environments[0]!.validationWarnings).toEqual(["solution: solution() returned an empty string; it must give a reference answer or action sequence"]);

    const strict = await runLoop("strict", { validator: { strict: true } }, designs(emptySolution));
    const attempts = listEnvironments(strict.db, { runId: strict.runId, orderBy: "id" }).map((e) => getEnvironment(strict.db, e.id)!);
    expect(attempts.map((e) => [e.attempt, e.valid])).toEqual([[0, false], [1, false]]);
    expect(attempts[0]!.validationError).toContain("solution() returned an empty string");
    expect(attempts[0]!.validation!.checks.at(-1)).toMatchObject({ name: "solution", ok: false });
    expect(validationWarnings(attempts[0]!.validation!)).toEqual([]);
    for (const attempt of attempts) expect(listScheduledPlays(strict.db, attempt.id)).toEqual([]);
    expect(buildRunReport(strict.db, strict.runId).runs[0]!.ablations.filter((badge: string) => !badge.startsWith("deviation: LoRA"))).toEqual(["no corpus", "deviation: strict validator"]);
  });

  it("asks an empty hint writer three times, records the empty hint and a note, skips the hinted plays, and scores regret 0", async () => {
    const silent = (request: ChatRequest) => (requestRole(request) === "hint" ? "" : selfPlayReply(request));
    const { db, runId, backend, outcome } = await runLoop("silent-hint", {}, silent);
    expect(outcome).toBe("completed");
    expect(backend.calls.filter((call) => requestRole(call) === "hint")).toHaveLength(3);
    const [env] = listEnvironments(db, { runId });
    expect(getHint(db, env!.id)).toMatchObject({ source: "writer", text: "", rawReply: "" });
    expect(listRunNotes(db, runId).find((note) => note.kind === `hint empty ${env!.id}`)?.text).toContain("3 replies were empty");
    const plays = listScheduledPlays(db, env!.id);
    expect(plays.filter((play) => play.hinted)).toEqual([]);
    expect(plays.filter((play) => !play.hinted).length).toBe(2);
    expect(getEnvStats(db, env!.id)).toMatchObject({ regret: 0 });
  });
});
