// `spade run --resume` with a config that differs from the stored one: the CLI names the keys,
// refuses the ones that would change stored results, and goes on with --force-config for safe ones.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import type { ChatMessage } from "../../shared/llm.js";
import { resolveRunConfigPaths } from "../../main/selfplay/resolveRunConfigPaths.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createRun, getRun, updateRunStatus } from "../../main/store/queries/runs.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";
import { selfPlayReply } from "../support/selfPlayScript.js";

const spade = resolve("out/engine/main/cli/spade.js");
let dir: string;
let server: FakeOpenAiServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-resume-config-"));
  server = await startFakeOpenAiServer((request) => ({
    json: { choices: [{ index: 0, message: { role: "assistant", content: selfPlayReply({ messages: request.body.messages as ChatMessage[] }) }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5 } },
  }));
});
afterAll(async () => {
  await server?.close();
});

function configJson(extra: Record<string, unknown> = {}, backend: Record<string, unknown> = {}) {
  return { db: "w.sqlite", seed: 5, iterations: 1, envsPerIteration: 1, plays: 2, hintPlays: 2, maxTurns: 3, backend: { kind: "openai", baseUrl: server.baseUrl, model: "scripted", stream: false, logprobs: false, ...backend }, corpus: null, training: null, ...extra };
}

function writeConfig(name: string, json: Record<string, unknown>): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(json));
  return path;
}

function spadeRun(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [spade, ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((done) => child.on("close", (code) => done({ code, stderr })));
}

describe("spade run --resume with a changed config", () => {
  it("names the differing keys, refuses unsafe ones, and continues with --force-config for safe ones", async () => {
    // A paused run stored with the original config, as `spade run` stores it.
    const original = writeConfig("original", configJson());
    const db = openDatabase(join(dir, "w.sqlite"));
    const stored = resolveRunConfigPaths(parseRunConfig(configJson(), original), dir);
    const run = createRun(db, { config: stored, seed: 5 });
    updateRunStatus(db, run.id, "paused");
    db.close();

    const unsafe = await spadeRun(["run", "--config", writeConfig("unsafe", configJson({ seed: 6, plays: 3 }, { timeoutMs: 5000 })), "--resume", "--force-config"]);
    expect(unsafe.code).toBe(2);
    expect(unsafe.stderr).toContain(`differs from the one stored with unfinished run ${run.id}`);
    expect(unsafe.stderr).toContain("cannot change on a run with stored results: plays (2 → 3), seed (5 → 6)");
    expect(unsafe.stderr).toContain("could change with --resume --force-config: backend.timeoutMs (unset → 5000)");

    const safeConfig = writeConfig("safe", configJson({ iterations: 2 }, { timeoutMs: 5000 }));
    const unforced = await spadeRun(["run", "--config", safeConfig, "--resume"]);
    expect(unforced.code).toBe(2);
    expect(unforced.stderr).toContain("safe to change: backend.timeoutMs (unset → 5000), iterations (1 → 2)");
    expect(unforced.stderr).toContain("rerun with --resume --force-config");

    const forced = await spadeRun(["run", "--config", safeConfig, "--resume", "--force-config"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain(`resuming run ${run.id}`);
    const check = openDatabase(join(dir, "w.sqlite"), { readonly: true });
    const after = getRun(check, run.id)!;
    check.close();
    expect(after.status).toBe("completed");
    expect(after.iterationsCompleted).toBe(2);
    expect((after.config as { backend: { timeoutMs?: number } }).backend.timeoutMs).toBe(5000);
  }, 120_000);

  it("refuses --force-config without --resume", async () => {
    const result = await spadeRun(["run", "--config", writeConfig("plain", configJson()), "--force-config"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--force-config only goes with --resume");
  });
});
