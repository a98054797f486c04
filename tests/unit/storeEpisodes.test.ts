import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../shared/llm.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import {
  findEpisode,
  getEpisode,
  getTurns,
  insertEpisodesWithTurns,
  insertEpisodeWithTurns,
  listEpisodes,
  type NewEpisode,
  type NewTurn,
} from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";

let dir: string;
let db: WritableDb;
let runId: number;
let environmentId: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-store-episodes-"));
  db = openDatabase(join(dir, "ws.sqlite"));
  runId = createRun(db).id;
  environmentId = insertEnvironment(db, { runId, iteration: 0, slot: 0, attempt: 0, source: "designer", code: "class E: pass", valid: true });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const system: ChatMessage = { role: "system", content: "Play. Answer with \\boxed{action}." };
const observations = ["You are at the door.\n\nHINT: try the key", "The door is locked.", "The door opens.", "You win."];
const replies = ["\\boxed{push}", "\\boxed{key}", "\\boxed{enter}"];

/** The prompts the rollout engine builds: system + first observation, then reply/observation pairs. */
function prompts(): ChatMessage[][] {
  const result: ChatMessage[][] = [];
  let messages: ChatMessage[] = [system, { role: "user", content: observations[0]! }];
  for (let t = 0; t < replies.length; t++) {
    result.push(messages);
    messages = [...messages, { role: "assistant", content: replies[t]! }, { role: "user", content: observations[t + 1]! }];
  }
  return result;
}

function turns(messagesFor: (t: number, full: ChatMessage[]) => ChatMessage[] | null): NewTurn[] {
  return prompts().map((full, t) => ({
    messages: messagesFor(t, full),
    rawReply: replies[t]!,
    reasoning: t === 0 ? "The door may be stuck." : null,
    action: replies[t]!.slice(7, -1),
    observation: observations[t + 1]!,
    reward: t === 2 ? 1 : 0,
    terminated: t === 2,
    truncated: false,
    info: { turn: t },
    tokenIds: [t, 1000 + t, -5, 2 ** 31 - 1],
    tokenProbs: [0.5, 0.25, 1, 0.1],
    latencyMs: 3.5,
    promptTokens: 20 + t,
    completionTokens: 4,
  }));
}

const episode = (fields: Partial<NewEpisode> = {}): NewEpisode => ({
  runId,
  environmentId,
  hinted: true,
  playIndex: 0,
  canary: false,
  seed: 1234,
  return: 1,
  totalTokens: 75,
  adapter: null,
  error: null,
  timedOut: false,
  firstObservation: observations[0]!,
  resetInfo: { level: 1 },
  startedAt: 1000,
  finishedAt: 2000,
  ...fields,
});

describe("insertEpisodeWithTurns / getTurns", () => {
  it("round-trips an episode and its turns, token arrays as Int32 / Float32", () => {
    const id = insertEpisodeWithTurns(db, episode(), turns((_, full) => full));
    expect(getEpisode(db, id)).toEqual({ id, ...episode(), tools: null, rollout: null, turnCount: 3 });
    const stored = getTurns(db, id);
    expect(stored.map((turn) => turn.idx)).toEqual([0, 1, 2]);
    expect(stored[2]).toEqual({
      episodeId: id,
      idx: 2,
      messages: prompts()[2],
      rawReply: "\\boxed{enter}",
      reasoning: null,
      action: "enter",
      observation: "You win.",
      reward: 1,
      terminated: true,
      truncated: false,
      info: { turn: 2 },
      tokenIds: [2, 1002, -5, 2147483647],
      tokenProbs: [0.5, 0.25, 1, Math.fround(0.1)],
      promptTokenIds: null,
      tokenLogprobs: null,
      sampling: null,
      latencyMs: 3.5,
      promptTokens: 22,
      completionTokens: 4,
    });
    const blob = db.prepare("SELECT token_ids FROM turns WHERE episode_id = ? AND idx = 0").pluck().get(id) as Buffer;
    expect([...new Int32Array(blob.buffer, blob.byteOffset, 4)]).toEqual([0, 1000, -5, 2147483647]);
  });

  it("stores prompts compactly: a continuation of the previous turn is not stored again", () => {
    const id = insertEpisodeWithTurns(db, episode(), turns((_, full) => full));
    const rows = db.prepare("SELECT messages, messages_prefix FROM turns WHERE episode_id = ? ORDER BY idx").all(id);
    expect(rows).toEqual([
      { messages: JSON.stringify(prompts()[0]), messages_prefix: 0 },
      { messages: null, messages_prefix: 0 },
      { messages: null, messages_prefix: 0 },
    ]);
  });

  it("rebuilds later prompts when the rollout records only turn 0's", () => {
    const id = insertEpisodeWithTurns(db, episode(), turns((t, full) => (t === 0 ? full : null)));
    expect(getTurns(db, id).map((turn) => turn.messages)).toEqual(prompts());
  });

  it("keeps prompts that are not continuations (a trimmed history) exactly", () => {
    // History of one exchange: system + first observation stay, older exchanges drop out.
    const trimmed = (t: number, full: ChatMessage[]) => (t < 2 ? full : [full[0]!, full[1]!, ...full.slice(-2)]);
    const id = insertEpisodeWithTurns(db, episode(), turns(trimmed));
    const expected = prompts().map((full, t) => trimmed(t, full));
    expect(getTurns(db, id).map((turn) => turn.messages)).toEqual(expected);
    const prefix = db.prepare("SELECT messages_prefix FROM turns WHERE episode_id = ? AND idx = 2").pluck().get(id);
    expect(prefix).toBe(2);
  });

  it("pages through turns and rebuilds prompts of a later page", () => {
    const id = insertEpisodeWithTurns(db, episode(), turns((t, full) => (t === 0 ? full : null)));
    const page = getTurns(db, id, { offset: 1, limit: 1 });
    expect(page.map((turn) => [turn.idx, turn.messages])).toEqual([[1, prompts()[1]]]);
    expect(getTurns(db, id, { offset: 2, messages: false }).map((turn) => [turn.idx, turn.messages])).toEqual([[2, null]]);
  });

  it("leaves prompts null when none were recorded", () => {
    const id = insertEpisodeWithTurns(db, episode(), turns(() => null));
    expect(getTurns(db, id).map((turn) => turn.messages)).toEqual([null, null, null]);
  });

  it("stores an episode with no turns (reset failed) and its error", () => {
    const id = insertEpisodeWithTurns(db, episode({ return: 0, error: "reset(seed=1) failed: timeout", timedOut: true, firstObservation: undefined }), []);
    expect(getEpisode(db, id)).toMatchObject({ turnCount: 0, error: "reset(seed=1) failed: timeout", timedOut: true, firstObservation: null });
    expect(getTurns(db, id)).toEqual([]);
  });

  it("writes nothing when a turn fails to insert (one transaction)", () => {
    const bad = turns((_, full) => full);
    (bad[1] as { reward: unknown }).reward = { not: "a number" };
    expect(() => insertEpisodeWithTurns(db, episode(), bad)).toThrow();
    expect(db.prepare("SELECT count(*) FROM episodes").pluck().get()).toBe(0);
    expect(db.prepare("SELECT count(*) FROM turns").pluck().get()).toBe(0);
  });

  it("refuses the same play twice, and finds stored plays for resume", () => {
    const id = insertEpisodeWithTurns(db, episode({ hinted: false, playIndex: 3 }), []);
    expect(() => insertEpisodeWithTurns(db, episode({ hinted: false, playIndex: 3 }), [])).toThrow(/UNIQUE constraint failed/);
    expect(findEpisode(db, environmentId, false, 3, false)?.id).toBe(id);
    expect(findEpisode(db, environmentId, true, 3, false)).toBeNull();
    expect(findEpisode(db, environmentId, false, 3, true)).toBeNull();
  });

  it("lists an environment's plays: canary, then unhinted, then hinted, by play index", () => {
    const order = [
      { hinted: true, playIndex: 1, canary: false },
      { hinted: false, playIndex: 1, canary: false },
      { hinted: true, playIndex: 0, canary: false },
      { hinted: false, playIndex: 0, canary: true },
      { hinted: false, playIndex: 0, canary: false },
    ];
    const ids = insertEpisodesWithTurns(db, order.map((fields) => ({ episode: episode(fields), turns: [] })));
    expect(ids).toHaveLength(5);
    expect(listEpisodes(db, environmentId).map((e) => [e.canary, e.hinted, e.playIndex])).toEqual([
      [true, false, 0],
      [false, false, 0],
      [false, false, 1],
      [false, true, 0],
      [false, true, 1],
    ]);
  });
});
