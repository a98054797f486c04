// The training CLI contracts in-process: spade eval (OpenAI backend against a fake server on
// loopback, and the local backend with a registered adapter), spade adapters, spade train.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { adaptersCommand } from "../../main/cli/commands/adaptersCommand.js";
import { evalCommand } from "../../main/cli/commands/evalCommand.js";
import { trainCommand } from "../../main/cli/commands/trainCommand.js";
import { UsageError } from "../../main/cli/UsageError.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { listAdapters } from "../../main/store/queries/adapters.js";
import { listEvalResults } from "../../main/store/queries/evalResults.js";
import { compileFixture } from "../fixtures/trainers/compileFixture.js";
import { completionBody, startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";
import { writeLoraAdapter, writeTinyLlamaModel, type TinyLlamaModel } from "../support/ggufWriter.js";
import { seedTrainingWorkspace } from "../support/trainingFixture.js";
import { runCommand } from "../support/runCommand.js";

const gsm8k = join(import.meta.dirname, "..", "..", "..", "shared", "data", "gsm8k", "test.jsonl");
let dir: string;
let server: FakeOpenAiServer;
let model: TinyLlamaModel;
let dbPath: string;
let runId: number;
let fakeTrainerJs: string;

const replies: Array<[string, string]> = [
  ["Janet’s ducks", "She sells 9 eggs: \\boxed{18}"],
  ["A robe takes", "2 + 1 = 3\n#### 3"],
  ["Josh decides", "So the profit was $70,000."],
  ["James decides", "\\boxed{450}"],
  ["Every day, Wendi", "No idea."],
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-train-cli-"));
  server = await startFakeOpenAiServer((request) => {
    const messages = request.body.messages as Array<{ content: string }>;
    const question = messages.at(-1)!.content;
    return { json: completionBody(replies.find(([start]) => question.startsWith(start))?.[1] ?? "?") };
  });
  model = await writeTinyLlamaModel(join(dir, "tiny.gguf"));
  dbPath = join(dir, "workspace.sqlite");
  const db = openDatabase(dbPath);
  runId = seedTrainingWorkspace(db).runId;
  db.close();
  fakeTrainerJs = compileFixture(join(import.meta.dirname, "..", "fixtures", "trainers", "fakeTrainer.ts"), join(dir, "bin"));
});
afterAll(() => server?.close());
afterEach(() => vi.restoreAllMocks());

/** Runs a command in-process and returns its exit code and stdout (stderr is swallowed). */
const cli = runCommand;

function writeJson(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

describe("spade eval", () => {
  it("prints exactly the contract's JSON for a GSM8K slice and stores the base model's result", async () => {
    const config = writeJson("openai.json", { backend: { kind: "openai", baseUrl: server.baseUrl, model: "m", stream: false }, db: "workspace.sqlite" });
    const { code, stdout } = await cli(evalCommand, ["--suite", gsm8k, "--config", config, "--limit", "5", "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      suite: gsm8k,
      n: 5,
      correct: 3,
      accuracy: 0.6,
      // The 95% bootstrap interval over the five questions (its own test checks its arithmetic).
      interval: [expect.any(Number), expect.any(Number)],
      items: [
        { index: 0, expected: "18", predicted: "18", correct: true },
        { index: 1, expected: "3", predicted: "3", correct: true },
        { index: 2, expected: "70000", predicted: "$70,000", correct: true },
        { index: 3, expected: "540", predicted: "450", correct: false },
        { index: 4, expected: "20", predicted: null, correct: false },
      ],
    });
    expect(server.requests.every((r) => r.body.temperature === 0)).toBe(true);
    const db = openDatabase(dbPath, { readonly: true });
    expect(listEvalResults(db, { adapterId: null, suite: gsm8k }).map((r) => [r.n, r.correct, r.accuracy])).toEqual([[5, 3, 0.6]]);
    db.close();
  });

  it("refuses bad input with usage errors naming the problem", async () => {
    const config = writeJson("openai2.json", { backend: { kind: "openai", baseUrl: server.baseUrl, model: "m" } });
    await expect(evalCommand.run(["--suite", gsm8k, "--config", config, "--adapter", join(dir, "tiny.gguf")])).rejects.toThrow(/a GGUF adapter needs the local llama backend/);
    await expect(evalCommand.run(["--suite", join(dir, "missing.jsonl"), "--config", config])).rejects.toThrow(/missing\.jsonl: the suite does not exist/);
    await expect(evalCommand.run(["--suite", gsm8k, "--config", config, "--limit", "0"])).rejects.toBeInstanceOf(UsageError);
    await expect(evalCommand.run(["--suite", gsm8k, "--config", writeJson("bad.json", { backend: { kind: "openai", baseUrl: "x", model: "m" } })])).rejects.toThrow(/backend\.baseUrl: expected an http:\/\/ or https:\/\/ URL/);
  });
});

describe("spade adapters", () => {
  it("refuses an adapter for another architecture, registers a fitting one, and shows its lineage", async () => {
    const wrong = join(dir, "falcon-lora.gguf");
    await writeLoraAdapter(wrong, { base: model, architecture: "falcon" });
    await expect(adaptersCommand.run(["add", wrong, "--db", dbPath, "--base", model.path])).rejects.toThrow(/refused: .*the adapter is for architecture "falcon", but the base model is "llama"/);
    const good = join(dir, "good-lora.gguf");
    await writeLoraAdapter(good, { base: model, seed: 5 });
    const added = await cli(adaptersCommand, ["add", good, "--db", dbPath, "--base", model.path, "--name", "external", "--json"]);
    const { adapter } = JSON.parse(added.stdout);
    expect(adapter).toMatchObject({ name: "external", parentId: null, status: "ready", path: join(dir, "adapters", "external.gguf") });
    const child = join(dir, "child-lora.gguf");
    await writeLoraAdapter(child, { base: model, seed: 6 });
    const second = JSON.parse((await cli(adaptersCommand, ["add", child, "--db", dbPath, "--base", model.path, "--parent", "external", "--json"])).stdout);
    expect(second.adapter).toMatchObject({ name: "imported-v1", parentId: adapter.id });
    const shown = JSON.parse((await cli(adaptersCommand, ["show", "imported-v1", "--db", dbPath, "--json"])).stdout);
    expect(shown.lineage.map((a: { name: string }) => a.name)).toEqual(["imported-v1", "external"]);
    const listed = JSON.parse((await cli(adaptersCommand, ["list", "--db", dbPath, "--json"])).stdout);
    expect(listed.adapters.map((a: { name: string }) => a.name)).toEqual(["external", "imported-v1"]);
    await expect(adaptersCommand.run(["show", "nope", "--db", dbPath])).rejects.toThrow(/"nope" is neither a registered adapter nor an existing file/);
  });
});

describe("spade train", () => {
  it("exports, trains, registers, evaluates against the base model and gates; spade eval then scores the adapter", async () => {
    const suite = join(dir, "tiny-suite.jsonl");
    writeFileSync(suite, [{ problem: "1+1?", answer: "2" }, { problem: "Colour of grass?", answer: "green" }].map((l) => JSON.stringify(l)).join("\n"));
    const runConfig = writeJson("run.json", {
      db: "workspace.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 2, hintPlays: 2, maxTurns: 3, corpus: null,
      backend: { kind: "llama", modelPath: "tiny.gguf", gpu: false, threads: 1, contextSize: 256 },
      trainer: {
        command: [process.execPath, fakeTrainerJs, "--dataset", "{dataset}", "--base", "{baseModel}", "--out", "{outputDir}", "--previous", "{previousAdapter}"],
        eval: { suite: "tiny-suite.jsonl", margin: 0, maxTokens: 8 },
      },
    });
    const { code, stdout, stderr } = await cli(trainCommand, ["--config", runConfig, "--run", String(runId), "--json"]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.adapter).toMatchObject({ name: `run-${runId}-v1`, parentId: null, runId });
    // A random-weight model answers nothing right with or without the adapter: equal scores pass a zero margin.
    expect(result.evaluation).toMatchObject({ n: 2, score: 0, parentScore: 0, promoted: true });
    expect(result.adapter.status).toBe("promoted");
    expect(result.dataset.files.map((f: { path: string }) => f.path)).toEqual(["trl-sft.jsonl", "grpo.jsonl"]);
    expect(stderr).toContain("[spade] registered");

    const evalConfig = writeJson("eval-llama.json", { backend: { kind: "llama", modelPath: "tiny.gguf", gpu: false, threads: 1, contextSize: 256 }, db: "workspace.sqlite" });
    const scored = await cli(evalCommand, ["--suite", suite, "--config", evalConfig, "--adapter", String(result.adapter.id), "--max-tokens", "8", "--json"]);
    expect(JSON.parse(scored.stdout)).toMatchObject({ n: 2, correct: 0 });
    const db = openDatabase(dbPath, { readonly: true });
    const stored = listEvalResults(db, { adapterId: result.adapter.id, suite });
    expect(stored).toHaveLength(2); // the gate's evaluation and this one
    expect(listAdapters(db, runId).at(-1)!.status).toBe("promoted");
    db.close();

    await expect(trainCommand.run(["--config", writeJson("no-trainer.json", { db: "workspace.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 2, hintPlays: 2, maxTurns: 3, corpus: null, backend: { kind: "llama", modelPath: "tiny.gguf" } }), "--run", String(runId)])).rejects.toThrow(/has no "trainer" block/);
  });
});
