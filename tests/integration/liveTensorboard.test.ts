// Experiment tracking, live: `spade run` appends TensorBoard events while it runs (one folder per
// run beside the workspace): read back while the run goes on, they hold every finished iteration's
// metrics, histograms of returns and advantages, and the config.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../shared/llm.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";
import { selfPlayReply } from "../support/selfPlayScript.js";
import { startCli } from "../support/startCli.js";
import { decodeEvent, readTfRecords, type DecodedEvent } from "../support/tfEvents.js";

let dir: string;
let server: FakeOpenAiServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-live-tb-"));
  server = await startFakeOpenAiServer(async (request) => {
    await new Promise((r) => setTimeout(r, 20));
    return { json: { choices: [{ index: 0, message: { role: "assistant", content: selfPlayReply({ messages: request.body.messages as ChatMessage[] }) }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5 } } };
  });
  writeFileSync(join(dir, "corpus.jsonl"), ["DOC:magic doors", "DOC:riddle numbers"].map((text) => JSON.stringify({ text })).join("\n") + "\n");
});
afterAll(async () => {
  await server?.close();
});

function readEvents(folder: string): DecodedEvent[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.includes("tfevents"))
    .flatMap((name) => readTfRecords(readFileSync(join(folder, name))).map(decodeEvent));
}

describe("live TensorBoard files", () => {
  it("are read back while the run goes on", async () => {
    writeFileSync(join(dir, "run.json"), JSON.stringify({
      db: "w.sqlite", seed: 2, iterations: 30, envsPerIteration: 2, plays: 3, hintPlays: 2, maxTurns: 3,
      backend: { kind: "openai", baseUrl: server.baseUrl, model: "scripted", stream: false, logprobs: false, maxConcurrency: 2 }, training: null,
      corpus: { path: "corpus.jsonl" },
    }));
    const run = startCli(["run", "--config", join(dir, "run.json")]);
    const folder = join(dir, "tensorboard", "run-1");
    const deadline = Date.now() + 90_000;
    let events: DecodedEvent[] = [];
    while (Date.now() < deadline) {
      events = readEvents(folder);
      if (events.some((event) => event.step === 1 && event.values.length > 0)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const stillRunning = run.child.exitCode === null;
    run.child.kill("SIGINT");
    const ended = await run.done;
    expect(stillRunning, ended.stderr).toBe(true);
    expect(events[0]).toMatchObject({ fileVersion: "brain.Event:2" });
    const config = events.flatMap((event) => event.texts).find(([tag]) => tag === "config");
    expect(JSON.parse(config![1].replace(/^```json\n|\n```$/g, ""))).toMatchObject({ seed: 2, iterations: 30, plays: 3 });
    // The config as the hyperparameters of the folder's HParams session, there from the start.
    const sessions = events.flatMap((event) => event.hparams);
    expect(sessions.find((h) => h.sessionStartInfo)?.sessionStartInfo?.hparams).toMatchObject({ seed: 2, iterations: 30, plays: 3, "backend.kind": "openai", "corpus.path": expect.stringMatching(/corpus\.jsonl$/) });
    expect(readEvents(folder).some((event) => event.hparams.some((h) => h.sessionEndInfo))).toBe(false); // paused: the session stays open for the resume
    for (const step of [0, 1]) {
      const scalars = new Map(events.filter((event) => event.step === step).flatMap((event) => event.values));
      expect(scalars.get("spade/wallTimeMs"), `step ${step}`).toBeGreaterThan(0);
      if (step === 0) expect(scalars.get("spade/validityRate")).toBe(1); // the rollout that designed the batch
      const histograms = new Map(events.filter((event) => event.step === step).flatMap((event) => event.histograms));
      expect(histograms.get("spade/returns")).toBeGreaterThan(0);
      expect(histograms.get("spade/advantages")).toBe(histograms.get("spade/returns"));
    }
  }, 150_000);

  it("end a completed run's HParams session as a success", async () => {
    mkdirSync(join(dir, "short"));
    writeFileSync(join(dir, "short", "short.json"), JSON.stringify({
      db: "short.sqlite", seed: 3, iterations: 1, envsPerIteration: 1, plays: 2, hintPlays: 1, maxTurns: 2,
      backend: { kind: "openai", baseUrl: server.baseUrl, model: "scripted", stream: false, logprobs: false }, training: null, corpus: null,
    }));
    const ended = await startCli(["run", "--config", join(dir, "short", "short.json")]).done;
    expect(ended.code, ended.stderr).toBe(0);
    const sessions = readEvents(join(dir, "short", "tensorboard", "run-1")).flatMap((event) => event.hparams);
    expect(sessions.filter((h) => h.sessionEndInfo).map((h) => h.sessionEndInfo!.status)).toEqual([1]);
  }, 150_000);
});
