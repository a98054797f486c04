// `spade run` as a real child process against a scripted OpenAI-compatible server on loopback:
// kill -9 in the middle of a batch at concurrency 16 (every slot designed and played at once),
// then --resume, must end with the stored results of an uninterrupted run.
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
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
  dir = mkdtempSync(join(tmpdir(), "spade-resume-"));
  server = await startFakeOpenAiServer(async (request) => {
    const messages = request.body.messages as ChatMessage[];
    const content = selfPlayReply({ messages });
    await new Promise((r) => setTimeout(r, 15)); // slow enough that the kill lands mid-run
    return { json: { choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5 } } };
  });
  writeFileSync(join(dir, "corpus.jsonl"), ["DOC:magic doors", "DOC:riddle numbers", "DOC:broken parts", "DOC:copy of doors"].map((text) => JSON.stringify({ text })).join("\n") + "\n");
});
afterAll(async () => {
  await server?.close();
});

function writeConfig(name: string): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({
    db: `${name}.sqlite`, seed: 11, iterations: 2, envsPerIteration: 3, plays: 4, hintPlays: 4, maxTurns: 3,
    backend: { kind: "openai", baseUrl: server.baseUrl, model: "scripted", stream: false, logprobs: false, maxConcurrency: 16 },
    training: null, // collect only: the server is scripted
    corpus: { path: "corpus.jsonl" },
  }));
  return path;
}

const start = (args: string[]) => startCli(args);

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

async function report(db: string): Promise<RunReport> {
  const { code, stdout, stderr } = await start(["report", "--db", db, "--json"]).done;
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as RunReport;
}

/** What must not depend on being interrupted or on completion order: everything but row ids, in coordinate order. */
function outcome(result: RunReport) {
  const sorted = [...result.runs[0]!.environments].sort((a, b) => a.iteration - b.iteration || a.slot - b.slot || a.attempt - b.attempt);
  return sorted.map(({ id: _id, episodes, ...env }) => ({
    ...env,
    episodes: episodes.map(({ id: _episodeId, ...episode }) => episode).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  }));
}

describe("spade run: kill -9 and --resume", () => {
  it("ends with the same statistics as an uninterrupted run, nothing stored twice", async () => {
    const whole = await start(["run", "--config", writeConfig("whole")]).done;
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stderr).toMatch(/iteration 1 of 2 done: replay, win rate \d+%/); // rollout 1 replays rollout 0's games
    expect(whole.stderr).toContain("note: games are designed in rollout 0 only (regenerationInterval 4, 2 iterations): rollout 1 replays that batch");

    const killedDb = join(dir, "killed.sqlite");
    const config = writeConfig("killed");
    const first = start(["run", "--config", config]);
    const deadline = Date.now() + 60_000;
    while (episodeCount(killedDb) < 12 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    first.child.kill("SIGKILL");
    await first.done;
    const partial = await report(killedDb);
    expect(partial.runs[0]!.status).toBe("interrupted"); // killed: stored as running, its owner gone
    expect(partial.runs[0]!.iterationsCompleted).toBeLessThan(2);

    const second = await start(["run", "--config", config, "--resume"]).done;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/resuming run 1/);

    const expected = await report(join(dir, "whole.sqlite"));
    const resumed = await report(killedDb);
    expect(resumed.runs).toHaveLength(1);
    expect(resumed.runs[0]!.status).toBe("completed");
    expect(outcome(resumed)).toEqual(outcome(expected));
    // Its run completed: --resume again says so (exit 0) and starts nothing.
    const again = await start(["run", "--config", config, "--resume"]).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("run 1 with this config has completed (2 of 2 iterations); nothing to resume");
    expect((await report(killedDb)).runs).toHaveLength(1);
    for (const env of resumed.runs[0]!.environments.filter((e) => e.valid)) {
      // Rollout 0 generated the batch, rollout 1 replayed it: 4 unhinted plays each (the canary one of them) + 4 hinted once, none twice.
      expect(env.episodes).toHaveLength(4 + 4 + 4);
      expect(env.episodes.filter((e) => e.canary)).toHaveLength(2);
    }
  }, 240_000);

  it("refuses --resume when no unfinished run has this config, and a bad config by key", async () => {
    const none = await start(["run", "--config", writeConfig("fresh"), "--resume"]).done;
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/has no unfinished run with this config/);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ db: "x.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: "8", hintPlays: 1, maxTurns: 2, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null }));
    const result = await start(["run", "--config", bad]).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.json: plays: expected an integer >= 1, got "8"/);

    const noModel = join(dir, "no-model.json");
    writeFileSync(noModel, JSON.stringify({ db: "no-model.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 1, hintPlays: 1, maxTurns: 2, backend: { kind: "llama", modelPath: "models/missing.gguf" }, corpus: null }));
    const missing = await start(["run", "--config", noModel]).done;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no-model.json: backend.modelPath: ${join(dir, "models/missing.gguf")} does not exist`);
    expect(episodeCount(join(dir, "no-model.sqlite"))).toBe(0);
    expect(existsSync(join(dir, "no-model.sqlite"))).toBe(false); // refused before a run was created
  }, 60_000);
});
