import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { defaultTrainingHyper, parseTrainingConfig } from "../../shared/trainingConfig.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { upsertEnvStats } from "../../main/store/queries/envStats.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { getTurns, insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { getSampledTokens, setSampledTokens } from "../../main/store/queries/sampledTokens.js";
import { findTrainingRound, finishTrainingRound, listTrainingRounds, startTrainingRound } from "../../main/store/queries/trainingRounds.js";
import { buildTrainingBatch } from "../../main/training/buildTrainingBatch.js";
import { exportTrainingBatch } from "../../main/training/exportTrainingBatch.js";

describe("training config block", () => {
  it("fills documented defaults and reads its parsed form back as itself", () => {
    const parsed = parseTrainingConfig("run.json", { every: 2 });
    expect(parsed).toMatchObject({ every: 2, trainer: { kind: "gguf" }, roles: ["agent", "designer"], hyper: defaultTrainingHyper, rewardScale: 1, includeCanary: false, includeHinted: false, includeErrored: false, unloadModel: null });
    expect(parsed.hyper.clipLow).toBe(0.2);
    expect(parsed.hyper.clipHigh).toBe(0.28);
    expect(parsed.hyper.klCoef).toBe(0);
    const custom = parseTrainingConfig("run.json", { every: 1, trainer: { command: ["python3", "t.py", "--worker"] }, learningRate: 0.01, rank: 4, roles: ["agent"] });
    expect(custom.trainer).toEqual({ kind: "command", command: ["python3", "t.py", "--worker"], env: {}, cwd: null });
    expect(custom.hyper).toMatchObject({ learningRate: 0.01, rank: 4 });
    expect(parseTrainingConfig("again", JSON.parse(JSON.stringify(custom)))).toEqual(custom);
    const base = { db: "w.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 2, hintPlays: 0, maxTurns: 1, backend: { kind: "llama", modelPath: "m.gguf" }, corpus: null };
    const run = parseRunConfig({ ...base, training: { every: 1, trainer: "hf" } }, "run.json");
    expect(run.training?.trainer).toEqual({ kind: "hf", baseModel: null, convertScript: null });
    expect(parseRunConfig(JSON.parse(JSON.stringify(run)), "stored")).toEqual(run);
    expect(parseRunConfig(base, "run.json").training).toBeUndefined();
  });

  it("refuses unknown keys and wrong types by key", () => {
    expect(() => parseTrainingConfig("run.json", {})).toThrow(/run\.json: training\.every: required key is missing/);
    expect(() => parseTrainingConfig("run.json", { every: 0 })).toThrow(/training\.every: expected an integer >= 1, got 0/);
    expect(() => parseTrainingConfig("run.json", { every: 1, lr: 1 })).toThrow(/training\.lr: unknown key/);
    expect(() => parseTrainingConfig("run.json", { every: 1, trainer: "torch" })).toThrow(/training\.trainer: expected one of "gguf", "hf", got "torch"/);
    expect(() => parseTrainingConfig("run.json", { every: 1, trainer: {} })).toThrow(/training\.trainer\.command: required key is missing/);
    expect(() => parseTrainingConfig("run.json", { every: 1, roles: ["critic"] })).toThrow(/training\.roles\[0\]: expected one of "agent", "designer"/);
    expect(() => parseTrainingConfig("run.json", { every: 1, rank: 2.5 })).toThrow(/training\.rank: expected an integer >= 1, got 2\.5/);
    expect(() => parseTrainingConfig("run.json", { every: 1, includeHinted: "yes" })).toThrow(/training\.includeHinted: expected true or false/);
    expect(() => parseTrainingConfig("run.json", { every: 1, clipLow: 1.5 })).toThrow(/training\.clipLow: expected a number in \[0, 1\]/);
    expect(() => parseTrainingConfig("run.json", { every: 1, lossAggregation: "mean" })).toThrow(/training\.lossAggregation: expected one of "sample", "token", got "mean"/);
    expect(() => parseTrainingConfig("run.json", { every: 1, logprobs: "full" })).toThrow(/training\.logprobs: expected one of "reference", "sampling"/);
    expect(() => parseTrainingConfig("run.json", { every: 1, hyper: { adamBeta2: 1 } })).toThrow(/training\.hyper\.adamBeta2: expected a number in \[0, 1\), got 1/);
    expect(() => parseTrainingConfig("run.json", { every: 1, samplesPerStep: 0 })).toThrow(/training\.samplesPerStep: expected an integer >= 1, got 0/);
    expect(parseTrainingConfig("run.json", { every: 1, samplesPerStep: 64, lossAggregation: "token", checkpointing: false }).hyper).toMatchObject({ samplesPerStep: 64, lossAggregation: "token", checkpointing: false, maxTokensPerBatch: null });
  });
});

let dir: string;
let db: WritableDb;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-batch-"));
  db = openDatabase(join(dir, "ws.sqlite"));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A turn as the local backend records it: prompt ids, completion ids, log-probs. */
function turn(prompt: number[], completion: number[], reward: number, last = true) {
  return {
    messages: [{ role: "user" as const, content: "play" }],
    rawReply: "r",
    action: "a",
    observation: "o",
    reward,
    terminated: last,
    promptTokenIds: prompt,
    tokenIds: completion,
    tokenLogprobs: completion.map((_, i) => -0.5 - i),
    sampling: { temperature: 1, maxTokens: 8, seed: 3 },
  };
}

function seed() {
  const runId = createRun(db, { seed: 1 }).id;
  const designer = (iteration: number, slot: number, skill: string, reward: number | null, valid = true, tokens = true) => {
    const id = insertEnvironment(db, { runId, iteration, slot, attempt: 0, source: "designer", skill, code: valid ? `class E${iteration}${slot}: pass` : null, valid, adapter: iteration > 0 ? "run-1-r0.gguf" : null });
    if (tokens) setSampledTokens(db, "environments", id, { promptTokenIds: [1, 2, 3], tokenIds: [10 + slot, 11], tokenLogprobs: [-1, -2], sampling: { temperature: 1 } });
    if (reward !== null) upsertEnvStats(db, { environmentId: id, plays: 2, hintPlays: 0, designerReward: reward, rewardKind: "blend" });
    return id;
  };
  const a = designer(0, 0, "Planning", 0.8);
  const b = designer(0, 1, "Planning", 0.2);
  const c = designer(0, 2, "Logic", 0.5, true, false); // an OpenAI-compatible backend: no token ids
  designer(0, 3, "Logic", 0, false); // never valid: not trained
  const later = designer(1, 0, "Planning", 0.9); // another round's iteration
  const play = (environmentId: number, playIndex: number, ret: number, extra: { hinted?: boolean; canary?: boolean; error?: string; turns?: ReturnType<typeof turn>[] } = {}) =>
    insertEpisodeWithTurns(db, { runId, environmentId, hinted: extra.hinted ?? false, canary: extra.canary ?? false, playIndex, return: ret, error: extra.error ?? null, adapter: null }, extra.turns ?? [turn([1, 2], [7, 8, 9], ret)]);
  play(a, 0, 0, { canary: true });
  play(a, 0, 1, { turns: [turn([1, 2], [7], 0, false), turn([1, 2, 7, 5], [8, 9], 1)] });
  play(a, 1, 0);
  play(a, 2, 0);
  play(a, 3, 1);
  play(a, 0, 1, { hinted: true });
  play(a, 4, 0, { error: "step() failed" });
  play(b, 0, 1);
  play(b, 1, 1); // zero variance: kept with advantage 0
  play(later, 0, 1);
  return { runId, a, b, c, later };
}

describe("training batch", () => {
  it("agent turns with their exact context and group advantages, designer first generations centred per skill; the rest counted", () => {
    const { runId, a, b, later } = seed();
    const batch = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, rewardScale: 2 });
    const agent = batch.lines.filter((line) => line.role === "agent");
    const designer = batch.lines.filter((line) => line.role === "designer");
    // env A: 4 selected plays (one of 2 turns) = 5 lines; env B: 2 plays.
    expect(agent).toHaveLength(7);
    expect(batch.lines.every((line) => line.ref.environmentId !== later)).toBe(true);
    const multi = agent.filter((line) => line.ref.environmentId === a && line.ref.episodeId === agent.find((l) => l.ref.turn === 1)!.ref.episodeId);
    expect(multi.map((line) => line.tokens)).toEqual([[1, 2, 7], [1, 2, 7, 5, 8, 9]]);
    expect(multi[1]!.mask).toEqual([0, 0, 0, 0, 1, 1]);
    expect(multi[1]!.behaviorLogprobs).toEqual([null, null, null, null, -0.5, -1.5]);
    for (const line of agent) expect(line.tokens.length === line.mask.length && line.mask.length === line.behaviorLogprobs.length).toBe(true);
    const winners = agent.filter((line) => line.ref.environmentId === a && line.advantage > 0);
    const losers = agent.filter((line) => line.ref.environmentId === a && line.advantage < 0);
    expect(winners).toHaveLength(3); // the two winning plays, one with two turns
    expect(losers).toHaveLength(2);
    expect(winners[0]!.advantage).toBeCloseTo(-losers[0]!.advantage, 12); // 2 wins, 2 losses: symmetric
    expect(agent.filter((line) => line.ref.environmentId === b).map((line) => line.advantage)).toEqual([0, 0]);
    // Designer: Planning 0.8 and 0.2 centred (mean 0.5) x 2; Logic's only valid one has no tokens.
    expect(designer.map((line) => [line.ref.environmentId, line.advantage])).toEqual([[a, expect.closeTo(0.6, 12)], [b, expect.closeTo(-0.6, 12)]]);
    expect(designer[0]!.tokens).toEqual([1, 2, 3, 10, 11]);
    expect(designer[0]!.mask).toEqual([0, 0, 0, 1, 1]);
    expect(batch.header).toEqual({ format: "spade-batch", version: 1, roles: { agent: 7, designer: 2 }, "left out": { canary: 1, hinted: 1, errored: 1, noTokens: 1, unscored: 0, invalidOrRepair: 1 } });
    const agentOnly = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 1, roles: ["agent"], includeHinted: true, includeCanary: true });
    expect(agentOnly.header.roles).toEqual({ agent: 7 + 2 + 1, designer: 0 }); // + canary, hinted, and iteration 1
  });

  it("stores token records exactly and exports rows without token ids saying so", () => {
    const { runId, c } = seed();
    expect(getSampledTokens(db, "environments", c)).toEqual({ promptTokenIds: null, tokenIds: null, tokenLogprobs: null, sampling: null });
    const episode = db.prepare("SELECT id FROM episodes WHERE run_id = ? AND canary = 0 ORDER BY id LIMIT 1").pluck().get(runId) as number;
    const [first] = getTurns(db, episode);
    expect(first).toMatchObject({ promptTokenIds: [1, 2], tokenIds: [7], tokenLogprobs: [-0.5], sampling: { temperature: 1, maxTokens: 8, seed: 3 } });
    const out = join(dir, "export");
    const result = exportTrainingBatch(db, { outDir: out, runId });
    const lines = readFileSync(join(out, "batch.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ format: "spade-batch", version: 1 });
    const missing = lines.filter((line) => line.tokens === null);
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({ role: "designer", ref: { environmentId: c }, missing: expect.stringMatching(/no token ids/) });
    expect(result.untokenised).toBe(1);
    expect(lines.length).toBe(1 + result.header.roles.agent + result.header.roles.designer + 1);
  });
});

describe("training rounds store", () => {
  it("numbers rounds in order, and a round taken up again keeps its number and parent", () => {
    const runId = createRun(db).id;
    const first = startTrainingRound(db, runId, 0, null);
    expect(first).toMatchObject({ round: 0, afterIteration: 0, status: "running", adapterId: null, parentAdapterId: null });
    expect(startTrainingRound(db, runId, 0, 99).round).toBe(0);
    finishTrainingRound(db, runId, 0, "failed", { reason: "nothing to train on" });
    expect(startTrainingRound(db, runId, 2, null).round).toBe(1);
    expect(findTrainingRound(db, runId, 0)).toMatchObject({ status: "failed", metrics: { reason: "nothing to train on" } });
    expect(listTrainingRounds(db, runId).map((round) => [round.round, round.afterIteration, round.status])).toEqual([[0, 0, "failed"], [1, 2, "running"]]);
  });
});
