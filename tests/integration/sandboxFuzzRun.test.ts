// The fuzz run: one self-play run over games that raise, hang and lie (wrong types, huge values,
// answers that change between opens) at every entry point the loop calls, only where validation
// does not look. The run completes, and each game's error is recorded and says where it happened.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { requestRole, ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { addEnvSetMembers, createEnvSet } from "../../main/store/queries/envSets.js";
import { getEnvironment, listEnvironments } from "../../main/store/queries/environments.js";
import { listEpisodes } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { listRunNotes } from "../../main/store/queries/schedule.js";
import { createTestPool } from "../support/sandboxTestPool.js";

const folder = fileURLToPath(new URL("../fixtures/environments/fuzz/", import.meta.url));
const base = readFileSync(join(folder, "_base.py"), "utf8");
const games = Object.fromEntries(
  readdirSync(folder)
    .filter((name) => name.endsWith(".py") && !name.startsWith("_"))
    .map((name) => [name.replace(/\.py$/, ""), `${base}\n\n${readFileSync(join(folder, name), "utf8")}`]),
);

let dir: string;
let pool: SandboxPool;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-fuzz-"));
  pool = await createTestPool({ size: 2, callTimeoutMs: 3000 });
});
afterAll(async () => {
  await pool?.dispose();
});

/** The agent always says the winning word; the hint writer writes a harmless hint. */
function reply(request: ChatRequest): string {
  return requestRole(request) === "hint" ? "Think of starting." : "\\boxed{go} <answer>go</answer>";
}

describe("no environment can end a run", () => {
  it("completes a run of games that raise, hang and lie at every entry point, each game's error saying where", async () => {
    const names = Object.keys(games).sort();
    const config = parseRunConfig(
      {
        db: join(dir, "fuzz.sqlite"), seed: 11, iterations: 1, envsPerIteration: names.length, plays: 2, hintPlays: 1, maxTurns: 2,
        backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null,
        designer: { kind: "fixed", set: "fuzz" }, sandbox: { stepTimeoutMs: 3000, validationTimeoutMs: 180000 },
      },
      "fuzz.json",
    );
    const db = openDatabase(config.db);
    createEnvSet(db, "fuzz");
    addEnvSetMembers(db, "fuzz", names.map((name) => ({ code: games[name]!, source: "fuzz", hint: null })));
    const run = createRun(db, { config, seed: config.seed });
    const outcome = await new SelfPlayLoop(run.id, config, { db, backend: new ScriptedBackend(reply, 2), pool, corpus: null }).run();
    expect(outcome).toBe("completed");

    const envs = listEnvironments(db, { runId: run.id }).map((summary) => getEnvironment(db, summary.id)!);
    expect(envs).toHaveLength(names.length);
    const notes = listRunNotes(db, run.id);
    const byClass = (className: string) => {
      const env = envs.find((e) => e.code!.includes(`class ${className}(`));
      expect(env, className).toBeDefined();
      const episodes = listEpisodes(db, env!.id);
      return { env: env!, episodes, notes: notes.filter((note) => note.kind === `probe failed ${env!.id}`).map((note) => note.text) };
    };

    // The loop's probe (reset(seed=0), hint(), solution()): the environment's recorded error, the writer's hint used, the plays played.
    for (const [className, where] of [["ProbeResetRaisesEnv", "reset(seed=0)"], ["HintRaisesEnv", "hint()"], ["HintWrongTypeEnv", "hint()"], ["SolutionHangsEnv", "solution()"]] as const) {
      const game = byClass(className);
      expect(game.env.valid, className).toBe(true);
      expect(game.notes.join("\n"), className).toContain(`failed at ${where}`);
      expect(game.episodes.length, className).toBeGreaterThan(0);
    }
    expect(byClass("SolutionHangsEnv").notes.join("\n")).toMatch(/timeout/);

    // A reset that lies on every seed but the public and probe ones: caught by validation's secret
    // seeds (a warning under the reference's validity rule), and every play's lie is that play's error.
    const lying = byClass("ResetLiesInPlayEnv");
    expect(lying.env.valid).toBe(true);
    expect(lying.env.validation!.checks.find((check) => check.name === "deterministic")).toMatchObject({ ok: false, warning: true, detail: expect.stringMatching(/^playing the probe trajectory of a secret seed failed: .*observation/) });
    expect(lying.episodes.length).toBeGreaterThan(0);
    for (const episode of lying.episodes) expect(episode.error).toMatch(/reset|observation/);
    // A step with values beyond every limit, only for the agent's word: that play's recorded error.
    const huge = byClass("StepHugeValuesEnv");
    expect(huge.episodes.length).toBeGreaterThan(0);
    for (const episode of huge.episodes) expect(episode.error).toMatch(/step\(\) failed on turn 0: .*reward/);

    // Opens: tools that are not schemas, and an answer that changes between opens, are the game's validation error.
    const malformed = byClass("ToolsMalformedEnv");
    expect(malformed.env.valid).toBe(false);
    expect(malformed.env.validationError).toMatch(/get_tools\(\) entry 0 \("lookup"\): function.parameters must be an object/);
    // Its answer would change at the next open if any process state survived one: none does, so every open answers alike.
    const changing = byClass("OpenChangesEnv");
    expect(changing.env.valid).toBe(true);
    expect(changing.episodes.length).toBeGreaterThan(0);
    for (const episode of changing.episodes) expect(episode.error ?? "").not.toMatch(/open/);
  }, 480_000);
});
