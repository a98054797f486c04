// A run's stored state is always true: `spade run` interrupted by Ctrl-C (SIGINT to its process
// group, as a terminal sends it) is stored paused with no owner before the process exits; a run
// whose owner was killed with SIGKILL reads as interrupted (resumable) in `spade report`.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunReport } from "../../shared/runReport.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";
import { selfPlayReply } from "../support/selfPlayScript.js";
import type { ChatMessage } from "../../shared/llm.js";
import { startCli } from "../support/startCli.js";

let dir: string;
let server: FakeOpenAiServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-state-"));
  server = await startFakeOpenAiServer(async (request) => {
    const content = selfPlayReply({ messages: request.body.messages as ChatMessage[] });
    await new Promise((r) => setTimeout(r, 30));
    return { json: { choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5 } } };
  });
  writeFileSync(join(dir, "corpus.jsonl"), ["DOC:magic doors", "DOC:riddle numbers", "DOC:broken parts"].map((text) => JSON.stringify({ text })).join("\n") + "\n");
});
afterAll(async () => {
  await server?.close();
});

function writeConfig(name: string): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({
    db: `${name}.sqlite`, seed: 5, iterations: 3, envsPerIteration: 3, plays: 4, hintPlays: 4, maxTurns: 3,
    backend: { kind: "openai", baseUrl: server.baseUrl, model: "scripted", stream: false, logprobs: false, maxConcurrency: 2 }, training: null,
    corpus: { path: "corpus.jsonl" },
  }));
  return path;
}

function episodeCount(db: string): number {
  try {
    const handle = openDatabase(db, { readonly: true });
    try {
      return (handle.prepare("SELECT count(*) AS n FROM episodes").get() as { n: number }).n;
    } finally {
      handle.close();
    }
  } catch {
    return 0;
  }
}

async function waitForEpisodes(db: string, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (episodeCount(db) < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  expect(episodeCount(db)).toBeGreaterThanOrEqual(count);
}

function storedRun(db: string): { status: string; owner_pid: number | null; owner_heartbeat: number | null } {
  const handle = openDatabase(db, { readonly: true });
  try {
    return handle.prepare("SELECT status, owner_pid, owner_heartbeat FROM runs WHERE id = 1").get() as { status: string; owner_pid: number | null; owner_heartbeat: number | null };
  } finally {
    handle.close();
  }
}

describe("spade run: the stored state is the true state", () => {
  it("Ctrl-C (SIGINT to the process group) pauses: status paused, owner cleared, exit 130; --resume completes it", async () => {
    const config = writeConfig("sigint");
    const db = join(dir, "sigint.sqlite");
    const first = startCli(["run", "--config", config], { detached: true });
    await waitForEpisodes(db, 4);
    process.kill(-first.child.pid!, "SIGINT");
    const result = await first.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/pausing/);
    expect(result.stderr).toMatch(/run 1 paused/);
    expect(storedRun(db)).toEqual({ status: "paused", owner_pid: null, owner_heartbeat: null });

    const resumed = await startCli(["run", "--config", config, "--resume"]).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(storedRun(db).status).toBe("completed");
  }, 180_000);

  it("Ctrl-C twice stores the pause at once and exits 130", async () => {
    const db = join(dir, "twice.sqlite");
    const first = startCli(["run", "--config", writeConfig("twice")], { detached: true });
    await waitForEpisodes(db, 2);
    process.kill(-first.child.pid!, "SIGINT");
    await new Promise((r) => setTimeout(r, 5));
    process.kill(-first.child.pid!, "SIGINT");
    const result = await first.done;
    expect(result.code, result.stderr).toBe(130);
    expect(storedRun(db)).toEqual({ status: "paused", owner_pid: null, owner_heartbeat: null });
  }, 120_000);

  it("a run whose owner was killed with SIGKILL reads as interrupted, with the way to resume it", async () => {
    const db = join(dir, "killed.sqlite");
    const first = startCli(["run", "--config", writeConfig("killed")], { detached: true });
    await waitForEpisodes(db, 2);
    process.kill(-first.child.pid!, "SIGKILL");
    await first.done;
    expect(storedRun(db).status).toBe("running"); // nobody got to write another status
    const json = await startCli(["report", "--db", db, "--json"]).done;
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as RunReport).runs[0]!.status).toBe("interrupted");
    const text = await startCli(["report", "--db", db]).done;
    expect(text.stdout).toMatch(/^run 1 interrupted, 0 iterations/);
    expect(text.stdout).toContain("--resume");
  }, 120_000);
});
