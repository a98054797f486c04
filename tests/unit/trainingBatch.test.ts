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
import { setDesignerAdvantage, setEpisodeRollout } from "../../main/store/queries/schedule.js";
import { getSampledTokens, setSampledTokens } from "../../main/store/queries/sampledTokens.js";
import { findTrainingRound, finishTrainingRound, listTrainingRounds, startTrainingRound } from "../../main/store/queries/trainingRounds.js";
import { buildTrainingBatch } from "../../main/training/buildTrainingBatch.js";
import type { BatchLine } from "../../main/training/TrainingBatch.js";
import { exportTrainingBatch } from "../../main/training/exportTrainingBatch.js";
import { fillsShortBatch } from "../../main/training/fillsShortBatch.js";

describe("training config block", () => {
  it("fills documented defaults and reads its parsed form back as itself", () => {
    const parsed = parseTrainingConfig("run.json", { every: 2 });
    expect(parsed).toMatchObject({ every: 2, trainer: { kind: "gguf" }, roles: ["agent", "designer"], hyper: defaultTrainingHyper, includeCanary: true, includeHinted: false, includeErrored: false, unloadModel: null });
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
    // No training key: the recipe trains after every rollout; null: collect only.
    expect(parseRunConfig(base, "run.json").training).toMatchObject({ every: 1, trainer: { kind: "gguf" }, includeCanary: true });
    expect(parseRunConfig({ ...base, training: null }, "run.json").training).toBeNull();
    expect(parseRunConfig(JSON.parse(JSON.stringify({ ...base, training: null })), "stored").training).toBeNull();
  });

  it("refuses unknown keys and wrong types by key", () => {
    expect(parseTrainingConfig("run.json", {}).every).toBe(1);
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
function turn(prompt: number[], completion: number[], reward: number, last = true, info: Record<string, boolean> = {}) {
  return {
    messages: [{ role: "user" as const, content: "play" }],
    rawReply: "r",
    action: "a",
    observation: "o",
    reward,
    terminated: last,
    info,
    promptTokenIds: prompt,
    tokenIds: completion,
    tokenLogprobs: completion.map((_, i) => -0.5 - i),
    sampling: { temperature: 1, maxTokens: 8, seed: 3 },
  };
}

function seed() {
  const runId = createRun(db, { seed: 1 }).id;
  const designer = (iteration: number, slot: number, skill: string, advantage: number | null, valid = true, tokens = true) => {
    const id = insertEnvironment(db, { runId, iteration, slot, attempt: 0, source: "designer", skill, code: valid ? `class E${iteration}${slot}: pass` : null, valid, adapter: iteration > 0 ? "run-1-r0.gguf" : null });
    if (tokens) setSampledTokens(db, "environments", id, { promptTokenIds: [1, 2, 3], tokenIds: [10 + slot, 11], tokenLogprobs: [-1, -2], sampling: { temperature: 1 } });
    upsertEnvStats(db, { environmentId: id, plays: 2, hintPlays: 0, designerReward: valid ? 0.5 : 0, rewardKind: "blend" });
    // The advantage the delayed reward stored; a masked sample has none.
    if (valid) setDesignerAdvantage(db, id, advantage, advantage === null);
    return id;
  };
  const a = designer(0, 0, "Planning", 9.6);
  const b = designer(0, 1, "Planning", -9.6);
  const c = designer(0, 2, "Logic", 0, true, false); // an OpenAI-compatible backend: no token ids
  designer(0, 3, "Logic", 0, false); // never valid: not trained
  designer(0, 4, "Logic", null); // masked (a negative blend): not trained
  const later = designer(1, 0, "Planning", 1); // another regeneration
  const play = (environmentId: number, playIndex: number, ret: number, extra: { hinted?: boolean; canary?: boolean; error?: string; turns?: ReturnType<typeof turn>[]; rollout?: number } = {}) => {
    const id = insertEpisodeWithTurns(db, { runId, environmentId, hinted: extra.hinted ?? false, canary: extra.canary ?? false, playIndex, return: ret, error: extra.error ?? null, adapter: null }, extra.turns ?? [turn([1, 2], [7, 8, 9], ret)]);
    if (extra.rollout !== undefined) setEpisodeRollout(db, id, extra.rollout);
    return id;
  };
  play(a, 0, 0, { canary: true }); // the canary is one of the group
  play(a, 0, 1, { turns: [turn([1, 2], [7], 0, false), turn([1, 2, 7, 5], [8, 9], 1)] });
  play(a, 1, 0);
  play(a, 2, 0);
  play(a, 3, 1);
  play(a, 0, 1, { hinted: true });
  play(a, 4, 0, { error: "step() timed out on turn 0", turns: [] }); // the infrastructure failed it
  play(b, 0, 1);
  play(b, 1, 1);
  play(b, 2, -1, { error: "step() failed on turn 0: boom", turns: [turn([1, 2], [7], -1, true, { stepError: true })] }); // a scored step() exception
  play(a, 8, 1, { rollout: 1 }); // a replay of game A in rollout 1
  play(later, 0, 1);
  return { runId, a, b, c, later };
}

describe("training batch", () => {
  it("one group per game and rollout, the canary and scored step errors in it; designer samples with their stored advantage; the rest counted", () => {
    const { runId, a, b, later } = seed();
    const batch = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, designerRegenerations: [0] });
    const agent = batch.lines.filter((line) => line.role === "agent");
    const designer = batch.lines.filter((line) => line.role === "designer");
    // Game A in rollout 0: the canary and 4 plays (one of 2 turns, one line); game B: 3 plays.
    expect(agent).toHaveLength(8);
    expect(batch.lines.every((line) => line.ref.environmentId !== later)).toBe(true);
    const multi = agent.filter((line) => line.tokens.length === 6);
    expect(multi).toHaveLength(1);
    expect(multi[0]!.tokens).toEqual([1, 2, 7, 5, 8, 9]);
    expect(multi[0]!.mask).toEqual([0, 0, 1, 0, 1, 1]); // the observation token (5) masked out
    expect(multi[0]!.behaviorLogprobs).toEqual([null, null, -0.5, null, -0.5, -1.5]);
    expect(multi[0]!.ref).toMatchObject({ environmentId: a, turn: null });
    for (const line of agent) expect(line.tokens.length === line.mask.length && line.mask.length === line.behaviorLogprobs.length).toBe(true);
    // A: returns [0, 1, 0, 0, 1]: mean 0.4, population std sqrt(0.24).
    const std = Math.sqrt(0.24);
    expect(agent.filter((line) => line.ref.environmentId === a).map((line) => line.advantage)).toEqual([-0.4 / std, 0.6 / std, -0.4 / std, -0.4 / std, 0.6 / std].map((v) => expect.closeTo(v, 12)));
    // B: returns [1, 1, -1]: mean 1/3, population std sqrt(8/9).
    expect(agent.filter((line) => line.ref.environmentId === b).map((line) => line.advantage)).toEqual([2 / 3, 2 / 3, -4 / 3].map((v) => expect.closeTo(v / Math.sqrt(8 / 9), 12)));
    // Designer first, with the advantage stored when its reward was scored.
    expect(batch.lines.slice(0, 2).map((line) => line.role)).toEqual(["designer", "designer"]);
    expect(designer.map((line) => [line.ref.environmentId, line.advantage])).toEqual([[a, 9.6], [b, -9.6]]);
    expect(designer[0]!.tokens).toEqual([1, 2, 3, 10, 11]);
    expect(designer[0]!.mask).toEqual([0, 0, 0, 1, 1]);
    expect(batch.header).toEqual({ format: "spade-batch", version: 1, roles: { agent: 8, designer: 2 }, "left out": { canary: 0, hinted: 1, errored: 1, noTokens: 1, unscored: 0, masked: 1, compactFiltered: 0, malformedToolCalls: 0, trimmed: 0 }, maskedSamples: 0, globalBatch: null, upsampled: 0 });
    // No designer samples unless their reward was scored in the range; the replay rollout is its own group.
    const replay = buildTrainingBatch(db, { runId, fromIteration: 1, toIteration: 1 });
    expect(replay.header.roles).toEqual({ agent: 2, designer: 0 });
    expect(replay.lines.map((line) => [line.ref.environmentId, line.advantage])).toEqual([[a, 0], [later, 0]]);
  });

  it("designer samples first, agent samples trimmed past the actor batch; the canary left out on request", () => {
    const { runId } = seed();
    const trimmed = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, designerRegenerations: [0], actorBatch: 5 });
    expect(trimmed.lines.map((line) => line.role)).toEqual(["designer", "designer", "agent", "agent", "agent"]);
    expect(trimmed.header["left out"].trimmed).toBe(5);
    const noCanary = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, roles: ["agent"], includeCanary: false });
    expect(noCanary.header).toMatchObject({ roles: { agent: 7, designer: 0 }, "left out": { canary: 1 } });
  });

  it("a short batch is filled with copies round-robin to actorBatch minus the designer samples, each copy a sample of its own", () => {
    const { runId } = seed();
    const plain = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, designerRegenerations: [0] });
    const agent = plain.lines.filter((line) => line.role === "agent");
    const played = plain.header.roles.agent;
    // orchestrator.py upsample_trajectories: trajectories[idx % n] for idx = 0, 1, ... up to global batch - designer samples.
    const filled = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, designerRegenerations: [0], actorBatch: 2 + played + 3, upsample: true });
    expect(filled.header).toMatchObject({ roles: { agent: played + 3, designer: 2 }, upsampled: 3 });
    const copies = filled.lines.filter((line) => line.ref.copy !== undefined);
    const samplesOf = (lines: BatchLine[]) => [...new Set(lines.map((line) => line.ref.episodeId))];
    expect(samplesOf(copies)).toEqual(samplesOf(agent).slice(0, 3));
    expect(copies.every((line) => line.ref.copy === 1)).toBe(true);
    const original = agent.find((line) => line.ref.episodeId === copies[0]!.ref.episodeId)!;
    expect({ ...copies[0]!, ref: { ...copies[0]!.ref, copy: undefined } }).toEqual({ ...original, ref: { ...original.ref, copy: undefined } });
    // Which runs fill a short batch: plays following the actor batch, and library runs (fixed_env_rollout.py pads to the global batch).
    const schedule = (plays: number | null, kind: "llm" | "fixed" | "library") => ({ plays, designer: { kind, skills: [] } });
    expect([fillsShortBatch(schedule(null, "llm")), fillsShortBatch(schedule(8, "llm")), fillsShortBatch(schedule(16, "library")), fillsShortBatch(schedule(8, "fixed"))]).toEqual([true, false, true, false]);
    // Without the option (a fixed plays count) nothing is copied.
    expect(buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, designerRegenerations: [0], actorBatch: 2 + played + 3 }).header.upsampled).toBe(0);
  });

  it("the compact filter: a play that did not terminate counts in its group but trains nothing", () => {
    const { runId, a } = seed();
    const all = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, roles: ["agent"] });
    // Game A's first turn of the two-turn play did not end it; every play's last turn did, so only cut plays drop.
    const cut = insertEpisodeWithTurns(db, { runId, environmentId: a, hinted: false, canary: false, playIndex: 5, return: 0, adapter: null }, [turn([1, 2], [7], 0, false)]);
    const filtered = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, roles: ["agent"], compactFilter: true });
    expect(filtered.lines.some((line) => line.ref.episodeId === cut)).toBe(false);
    expect(filtered.header["left out"].compactFiltered).toBe(1);
    expect(filtered.header.roles.agent).toBe(all.header.roles.agent);
    // Its return 0 still counts in game A's group: returns [0, 1, 0, 0, 1, 0], mean 1/3.
    const winner = filtered.lines.find((line) => line.ref.environmentId === a && line.advantage > 0)!;
    expect(winner.advantage).toBeCloseTo((1 - 1 / 3) / Math.sqrt(2 / 9), 12);
    const unfiltered = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, roles: ["agent"] });
    expect(unfiltered.lines.some((line) => line.ref.episodeId === cut)).toBe(true);
    // It stays one of the step's samples with loss mask 0 (spade_rollout.py zeroes its loss_mask, cp_utils.py counts it):
    // the trainer's divisor counts it, and it takes its place in the actor batch.
    expect(filtered.header.maskedSamples).toBe(1);
    const room = unfiltered.header.roles.agent;
    const full = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, roles: ["agent"], compactFilter: true, actorBatch: room });
    expect(full.header).toMatchObject({ maskedSamples: 1, globalBatch: room, roles: { agent: room - 1 }, "left out": { trimmed: 0 } });
    const short = buildTrainingBatch(db, { runId, fromIteration: 0, toIteration: 0, roles: ["agent"], compactFilter: true, actorBatch: room - 1 });
    expect(short.header["left out"].trimmed).toBe(1);
  });

  it("a turn with a malformed tool call stays in its play's context but is not trained; a play of only such turns is left out", () => {
    const { runId, later } = seed();
    const mixed = insertEpisodeWithTurns(db, { runId, environmentId: later, hinted: false, canary: false, playIndex: 1, return: 0, adapter: null }, [
      turn([1, 2], [7], -0.1, false, { malformedToolCall: true }),
      turn([1, 2, 7, 5], [8, 9], 0),
    ]);
    const only = insertEpisodeWithTurns(db, { runId, environmentId: later, hinted: false, canary: false, playIndex: 2, return: 0, adapter: null }, [turn([1, 2], [7], -0.1, true, { malformedToolCall: true })]);
    const batch = buildTrainingBatch(db, { runId, fromIteration: 1, toIteration: 1, roles: ["agent"] });
    const line = batch.lines.find((l) => l.ref.episodeId === mixed)!;
    expect(line.tokens).toEqual([1, 2, 7, 5, 8, 9]);
    expect(line.mask).toEqual([0, 0, 0, 0, 1, 1]);
    expect(line.behaviorLogprobs).toEqual([null, null, null, null, -0.5, -1.5]);
    expect(batch.lines.some((l) => l.ref.episodeId === only)).toBe(false);
    expect(batch.header["left out"].malformedToolCalls).toBe(2);
    // A play of only such turns is still a sample, with loss mask 0 (the reference masks its turns, not the sample).
    expect(batch.header.maskedSamples).toBe(1);
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
