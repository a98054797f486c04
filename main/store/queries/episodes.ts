import type { JsonObject } from "../../../shared/environment.js";
import type { ChatMessage, SamplingOptions, ToolSpec } from "../../../shared/llm.js";
import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { fromJson, toFlag, toJson } from "../json.js";
import { decodeFloat32, decodeFloat64, decodeInt32, encodeFloat32, encodeFloat64, encodeInt32 } from "../numberBlobs.js";
import { decodePrompt, encodePrompt, type PreviousTurn } from "../promptMessages.js";
import { statement } from "../statement.js";

/** One play of an environment by the agent. */
export interface Episode {
  id: number;
  runId: number | null;
  environmentId: number;
  hinted: boolean;
  playIndex: number;
  canary: boolean;
  seed: number | null;
  return: number;
  /** Number of stored turns. */
  turnCount: number;
  totalTokens: number | null;
  adapter: string | null;
  error: string | null;
  /** A `step()` or `reset()` hit its deadline. */
  timedOut: boolean;
  /** The first observation as the agent saw it (with the hint when hinted). */
  firstObservation: string | null;
  resetInfo: JsonObject | null;
  /** The tools a tool-use play offered the model natively; null for text plays (and plays stored before they were recorded). */
  tools: ToolSpec[] | null;
  /** The rollout (iteration) the play was played in, as stored; null for a play outside a run and plays stored before episodes recorded it (those count for their game's iteration). */
  rollout: number | null;
  startedAt: number | null;
  finishedAt: number | null;
}

/**
 * What `insertEpisodeWithTurns` takes. Field names match the rollout engine's `RecordedEpisode`,
 * so `{ ...recorded, runId, environmentId }` is a valid `NewEpisode`.
 */
export type NewEpisode = Pick<Episode, "environmentId" | "hinted" | "playIndex" | "return"> &
  Partial<Omit<Episode, "id" | "environmentId" | "hinted" | "playIndex" | "return" | "turnCount" | "rollout">>;

/** One agent turn: the prompt, the reply and the environment's answer to its action. */
export interface Turn {
  episodeId: number;
  idx: number;
  /** The full prompt messages of this turn (reconstructed from the compact storage); null when not recorded. */
  messages: ChatMessage[] | null;
  rawReply: string | null;
  reasoning: string | null;
  action: string | null;
  observation: string | null;
  reward: number | null;
  terminated: boolean;
  truncated: boolean;
  info: JsonObject | null;
  tokenIds: number[] | null;
  tokenProbs: number[] | null;
  /** The prompt's token ids exactly as the model evaluated them (local backend); null when not recorded. */
  promptTokenIds: number[] | null;
  /** Each sampled token's log-prob under the distribution it was sampled from; null when not recorded. */
  tokenLogprobs: number[] | null;
  /** The sampling settings the call used; null when not recorded. */
  sampling: SamplingOptions | null;
  latencyMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

/**
 * A turn to store; its index is its position in the array. Field names match the rollout engine's
 * `RecordedTurn`. `messages` may be the full prompt of every turn (stored compactly), or null after
 * turn 0 when the prompt is the previous prompt + the previous reply + the previous observation.
 */
export type NewTurn = Partial<Omit<Turn, "episodeId" | "idx" | "tokenIds" | "tokenProbs" | "promptTokenIds" | "tokenLogprobs">> & {
  tokenIds?: ArrayLike<number> | null;
  tokenProbs?: ArrayLike<number> | null;
  promptTokenIds?: ArrayLike<number> | null;
  tokenLogprobs?: ArrayLike<number> | null;
};

export interface TurnPage {
  /** First turn index returned. Defaults to 0. */
  offset?: number;
  /** At most this many turns. Defaults to all. */
  limit?: number;
  /** Rebuild each turn's full prompt messages (false leaves `messages` null: faster for long replays). Defaults to true. */
  messages?: boolean;
}

interface EpisodeRow {
  id: number;
  run_id: number | null;
  environment_id: number;
  hinted: number;
  play_index: number;
  canary: number;
  seed: number | null;
  return: number;
  turns: number;
  total_tokens: number | null;
  adapter: string | null;
  error: string | null;
  timed_out: number;
  first_observation: string | null;
  reset_info: string | null;
  tools?: string | null;
  rollout?: number | null;
  started_at: number | null;
  finished_at: number | null;
}

interface TurnRow {
  episode_id: number;
  idx: number;
  messages: string | null;
  messages_prefix: number;
  raw_reply: string | null;
  reasoning: string | null;
  action: string | null;
  observation: string | null;
  reward: number | null;
  terminated: number;
  truncated: number;
  info: string | null;
  token_ids: Buffer | null;
  token_probs: Buffer | null;
  prompt_token_ids: Buffer | null;
  token_logprobs: Buffer | null;
  sampling: string | null;
  latency_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
}

function toEpisode(row: EpisodeRow): Episode {
  return {
    id: row.id,
    runId: row.run_id,
    environmentId: row.environment_id,
    hinted: row.hinted === 1,
    playIndex: row.play_index,
    canary: row.canary === 1,
    seed: row.seed,
    return: row.return,
    turnCount: row.turns,
    totalTokens: row.total_tokens,
    adapter: row.adapter,
    error: row.error,
    timedOut: row.timed_out === 1,
    firstObservation: row.first_observation,
    resetInfo: fromJson<JsonObject>(row.reset_info, "episodes.reset_info"),
    tools: fromJson<ToolSpec[]>(row.tools, "episodes.tools"),
    rollout: row.rollout ?? null,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

const insertEpisodeSql = `INSERT INTO episodes (run_id, environment_id, hinted, play_index, canary, seed, "return", turns, total_tokens,
    adapter, error, timed_out, first_observation, reset_info, started_at, finished_at, tools)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`;

const insertTurnSql = `INSERT INTO turns (episode_id, idx, messages, messages_prefix, raw_reply, reasoning, action, observation, reward,
    terminated, truncated, info, token_ids, token_probs, latency_ms, prompt_tokens, completion_tokens,
    prompt_token_ids, token_logprobs, sampling)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Stores an episode and all its turns in ONE transaction (a crash leaves the whole episode or
 * nothing) and returns its id. A second episode with the same environment, hinted flag, play index
 * and canary flag fails with a UNIQUE constraint error: on resume, check `findEpisode` first.
 */
export function insertEpisodeWithTurns(db: WritableDb, episode: NewEpisode, turns: readonly NewTurn[]): number {
  let insert = insertTransactions.get(db);
  if (!insert) insertTransactions.set(db, (insert = db.transaction((e: NewEpisode, t: readonly NewTurn[]) => insertOne(db, e, t)).immediate));
  return insert(episode, turns);
}

// One transaction function per connection, made once: the loop calls this for every play.
const insertTransactions = new WeakMap<WritableDb, (episode: NewEpisode, turns: readonly NewTurn[]) => number>();

/** Stores many episodes in one transaction (bulk import, benchmarks); returns their ids in order. */
export function insertEpisodesWithTurns(db: WritableDb, episodes: readonly { episode: NewEpisode; turns: readonly NewTurn[] }[]): number[] {
  return db.transaction(() => episodes.map(({ episode, turns }) => insertOne(db, episode, turns))).immediate();
}

function insertOne(db: WritableDb, episode: NewEpisode, turns: readonly NewTurn[]): number {
  const { id } = statement(db, insertEpisodeSql).get(
    episode.runId ?? null,
    episode.environmentId,
    toFlag(episode.hinted),
    episode.playIndex,
    toFlag(episode.canary ?? false),
    episode.seed ?? null,
    episode.return,
    turns.length,
    episode.totalTokens ?? null,
    episode.adapter ?? null,
    episode.error ?? null,
    toFlag(episode.timedOut ?? false),
    episode.firstObservation ?? null,
    toJson(episode.resetInfo),
    episode.startedAt ?? null,
    episode.finishedAt ?? null,
    episode.tools && episode.tools.length > 0 ? toJson(episode.tools) : null,
  ) as { id: number };
  const insertTurn = statement(db, insertTurnSql);
  let previousFull: ChatMessage[] | null = null;
  let previous: PreviousTurn | null = null;
  turns.forEach((turn, idx) => {
    const full = turn.messages ?? null;
    const stored = encodePrompt(full, previousFull, previous);
    insertTurn.run(
      id,
      idx,
      toJson(stored.messages),
      stored.prefix,
      turn.rawReply ?? null,
      turn.reasoning ?? null,
      turn.action ?? null,
      turn.observation ?? null,
      turn.reward ?? null,
      toFlag(turn.terminated ?? false),
      toFlag(turn.truncated ?? false),
      toJson(turn.info),
      encodeInt32(turn.tokenIds),
      encodeFloat32(turn.tokenProbs),
      turn.latencyMs ?? null,
      turn.promptTokens ?? null,
      turn.completionTokens ?? null,
      encodeInt32(turn.promptTokenIds),
      encodeFloat64(turn.tokenLogprobs),
      toJson(turn.sampling ?? null),
    );
    previousFull = full ?? decodePrompt(stored, previousFull, previous);
    previous = { rawReply: turn.rawReply ?? null, observation: turn.observation ?? null };
  });
  return id;
}

export function getEpisode(db: ReadonlyDb, id: number): Episode | null {
  const row = statement(db, `SELECT * FROM episodes WHERE id = ?`).get(id) as EpisodeRow | undefined;
  return row ? toEpisode(row) : null;
}

/** The stored play, if any (resume: skip plays already stored). */
export function findEpisode(db: ReadonlyDb, environmentId: number, hinted: boolean, playIndex: number, canary: boolean): Episode | null {
  const row = statement(db, `SELECT * FROM episodes WHERE environment_id = ? AND hinted = ? AND play_index = ? AND canary = ?`).get(
    environmentId,
    toFlag(hinted),
    playIndex,
    toFlag(canary),
  ) as EpisodeRow | undefined;
  return row ? toEpisode(row) : null;
}

/** An environment's plays: the canary first, then unhinted, then hinted, each by play index. */
export function listEpisodes(db: ReadonlyDb, environmentId: number): Episode[] {
  const rows = statement(db, `SELECT * FROM episodes WHERE environment_id = ? ORDER BY canary DESC, hinted, play_index`).all(
    environmentId,
  ) as EpisodeRow[];
  return rows.map(toEpisode);
}

/** A page of an episode's turns in order, each with its full prompt messages rebuilt. */
export function getTurns(db: ReadonlyDb, episodeId: number, page: TurnPage = {}): Turn[] {
  const offset = page.offset ?? 0;
  const limit = page.limit ?? -1;
  const rows = statement(db, `SELECT * FROM turns WHERE episode_id = ? AND idx >= ? ORDER BY idx LIMIT ?`).all(
    episodeId,
    offset,
    limit,
  ) as TurnRow[];
  let previousFull: ChatMessage[] | null = null;
  let previous: PreviousTurn | null = null;
  if (page.messages !== false && offset > 0) {
    // Prompts are stored relative to the turn before: replay the cheap columns of the earlier turns.
    const earlier = statement(
      db,
      `SELECT messages, messages_prefix, raw_reply, observation FROM turns WHERE episode_id = ? AND idx < ? ORDER BY idx`,
    ).all(episodeId, offset) as Pick<TurnRow, "messages" | "messages_prefix" | "raw_reply" | "observation">[];
    for (const row of earlier) {
      previousFull = decodeRow(row, previousFull, previous);
      previous = { rawReply: row.raw_reply, observation: row.observation };
    }
  }
  return rows.map((row) => {
    let messages: ChatMessage[] | null = null;
    if (page.messages !== false) {
      messages = decodeRow(row, previousFull, previous);
      previousFull = messages;
      previous = { rawReply: row.raw_reply, observation: row.observation };
    }
    return {
      episodeId: row.episode_id,
      idx: row.idx,
      messages,
      rawReply: row.raw_reply,
      reasoning: row.reasoning,
      action: row.action,
      observation: row.observation,
      reward: row.reward,
      terminated: row.terminated === 1,
      truncated: row.truncated === 1,
      info: fromJson<JsonObject>(row.info, "turns.info"),
      tokenIds: decodeInt32(row.token_ids, "turns.token_ids"),
      tokenProbs: decodeFloat32(row.token_probs, "turns.token_probs"),
      promptTokenIds: decodeInt32(row.prompt_token_ids ?? null, "turns.prompt_token_ids"),
      tokenLogprobs: decodeFloat64(row.token_logprobs ?? null, "turns.token_logprobs"),
      sampling: fromJson<SamplingOptions>(row.sampling ?? null, "turns.sampling"),
      latencyMs: row.latency_ms,
      promptTokens: row.prompt_tokens,
      completionTokens: row.completion_tokens,
    };
  });
}

function decodeRow(
  row: Pick<TurnRow, "messages" | "messages_prefix">,
  previousFull: ChatMessage[] | null,
  previous: PreviousTurn | null,
): ChatMessage[] | null {
  const stored = { messages: fromJson<ChatMessage[]>(row.messages, "turns.messages"), prefix: row.messages_prefix };
  return decodePrompt(stored, previousFull, previous);
}

/** The returns of a run's plays in one rollout (canary plays left out), with the game and whether it was hinted: the groups of GRPO. */
export function listRolloutReturns(db: ReadonlyDb, runId: number, rollout: number): { environmentId: number; hinted: boolean; return: number }[] {
  const rows = statement(db, `SELECT environment_id, hinted, return FROM episodes WHERE run_id = ? AND rollout = ? AND canary = 0 ORDER BY id`).all(runId, rollout) as { environment_id: number; hinted: number; return: number }[];
  return rows.map((row) => ({ environmentId: row.environment_id, hinted: row.hinted === 1, return: row.return }));
}

/** One play of a rollout as its metrics read it. */
export interface RolloutPlaySummary {
  environmentId: number;
  hinted: boolean;
  return: number;
  totalTokens: number | null;
  timedOut: boolean;
}

/**
 * The plays of the run's valid games played in `rollout` (the canary included), by game: a replay
 * rollout's plays belong to games designed in an earlier rollout. Plays stored before episodes
 * recorded their rollout count for their game's iteration.
 */
export function listRolloutPlaySummaries(db: ReadonlyDb, runId: number, rollout: number): RolloutPlaySummary[] {
  const rows = statement(
    db,
    `SELECT p.environment_id, p.hinted, p."return" AS ret, p.total_tokens, p.timed_out
     FROM episodes p JOIN environments e ON e.id = p.environment_id
     WHERE p.run_id = ? AND e.valid = 1 AND COALESCE(p.rollout, e.iteration) = ?
     ORDER BY p.environment_id, p.id`,
  ).all(runId, rollout) as { environment_id: number; hinted: number; ret: number; total_tokens: number | null; timed_out: number }[];
  return rows.map((row) => ({ environmentId: row.environment_id, hinted: row.hinted === 1, return: row.ret, totalTokens: row.total_tokens, timedOut: row.timed_out === 1 }));
}

/**
 * Why an environment's plays were cut off: episode id -> the `stop` their last turn's info
 * records (`length` when the reply filled its token budget or the context), for the plays that have one.
 */
export function listEpisodeStops(db: ReadonlyDb, environmentId: number): Map<number, string> {
  const rows = statement(
    db,
    `SELECT t.episode_id AS id, json_extract(t.info, '$.stop') AS stop FROM turns t JOIN episodes p ON p.id = t.episode_id
     WHERE p.environment_id = ? AND t.idx = (SELECT MAX(u.idx) FROM turns u WHERE u.episode_id = t.episode_id) AND json_extract(t.info, '$.stop') IS NOT NULL`,
  ).all(environmentId) as { id: number; stop: unknown }[];
  return new Map(rows.map((row) => [row.id, String(row.stop)]));
}
