// Store rows -> the API's view objects (the contract in shared/api, independent of the schema).
import type { EnvironmentDetail, EnvironmentListItem, EnvironmentStats, MemoryFlags } from "../../shared/api/environmentTypes.js";
import type { EpisodeSummary, TurnView } from "../../shared/api/episodeTypes.js";
import type { EnvSetMemberView } from "../../shared/api/envSetTypes.js";
import type { AdapterDetail, AdapterView, EvalResultView } from "../../shared/api/modelTypes.js";
import type { IterationMetrics as IterationMetricsView, RunDetail, RunProgressSnapshot, RunSummary } from "../../shared/api/runTypes.js";
import type { Adapter, EnvSetMember, EnvSetMemberPlays, EnvStats, Environment, EnvironmentSummary, Episode, EvalResult, IterationMetrics, MemoryEntry, Run, Turn } from "../store/index.js";

export function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function toRunSummary(run: Run, environments: number, validEnvironments: number, ablations: string[]): RunSummary {
  const iterations = asObject(run.config).iterations;
  return {
    id: run.id,
    name: run.name || null,
    status: run.status,
    seed: run.seed,
    iterations: typeof iterations === "number" ? iterations : null,
    iterationsCompleted: run.iterationsCompleted,
    environments,
    validEnvironments,
    error: run.error,
    ablations,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    finishedAt: run.finishedAt,
    progress: run.status === "running" ? ((run.progress as RunProgressSnapshot | null) ?? null) : null,
  };
}

export function toRunDetail(summary: RunSummary, run: Run): RunDetail {
  return { ...summary, config: asObject(run.config) };
}

/** Scalars go to `values`; arrays of numbers (or `{counts: [...]}` histograms) to `series`; nulls are gaps. */
export function toIterationMetrics(row: IterationMetrics): IterationMetricsView {
  const values: Record<string, number> = {};
  const series: Record<string, number[]> = {};
  for (const [name, value] of Object.entries(row.metrics)) {
    if (typeof value === "number" && Number.isFinite(value)) values[name] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === "number")) series[name] = value as number[];
    else if (value && typeof value === "object" && Array.isArray((value as { counts?: unknown }).counts)) {
      const counts = (value as { counts: unknown[] }).counts;
      if (counts.every((v) => typeof v === "number")) series[name] = counts as number[];
    }
  }
  return { iteration: row.iteration, values, series };
}

type ListSource = Pick<Environment, "id" | "runId" | "iteration" | "slot" | "attempt" | "source" | "className" | "valid" | "validationError" | "novelty" | "createdAt" | "skill">;

export function toEnvironmentListItem(env: ListSource, stats: Pick<EnvironmentSummary, "winRate" | "hintWinRate" | "regret" | "designerReward"> | null): EnvironmentListItem {
  return {
    id: env.id,
    runId: env.runId,
    iteration: env.iteration,
    slot: env.slot,
    attempt: env.attempt,
    source: env.source,
    className: env.className,
    valid: env.valid,
    validationError: env.validationError,
    novelty: env.novelty,
    winRate: stats?.winRate ?? null,
    hintWinRate: stats?.hintWinRate ?? null,
    regret: stats?.regret ?? null,
    designerReward: stats?.designerReward ?? null,
    createdAt: env.createdAt,
    skill: env.skill,
  };
}

/** A list row: the item plus its memory flags (from the list query's join). */
export function toEnvironmentRow(row: EnvironmentSummary, hintSkipped: string | null): EnvironmentListItem {
  return { ...toEnvironmentListItem(row, row), pinned: row.pinned, banned: row.banned, inMemory: row.inMemory, hintSkipped };
}

export function toEnvironmentStats(stats: EnvStats): EnvironmentStats {
  return {
    plays: stats.plays,
    hintPlays: stats.hintPlays,
    winRate: stats.winRate,
    hintWinRate: stats.hintWinRate,
    meanReturn: stats.meanReturn,
    hintMeanReturn: stats.hintMeanReturn,
    regret: stats.regret,
    designerReward: stats.designerReward,
    rewardKind: stats.rewardKind,
    stepTimeouts: stats.stepTimeouts,
  };
}

export function toMemoryFlags(entry: MemoryEntry): MemoryFlags {
  return { pinned: entry.pinned, banned: entry.banned, inMemory: entry.inMemory };
}

/** `gameIteration`: the iteration of the episode's game; a play stored before episodes recorded their rollout counts for it. */
export function toEpisodeSummary(episode: Episode, gameIteration: number | null): EpisodeSummary {
  return {
    id: episode.id,
    runId: episode.runId,
    environmentId: episode.environmentId,
    hinted: episode.hinted,
    playIndex: episode.playIndex,
    canary: episode.canary,
    seed: episode.seed,
    return: episode.return,
    turns: episode.turnCount,
    totalTokens: episode.totalTokens,
    adapter: episode.adapter,
    error: episode.error,
    rollout: episode.runId === null ? null : (episode.rollout ?? gameIteration),
    gameIteration: episode.runId === null ? null : gameIteration,
  };
}

export function toTurnView(turn: Turn): TurnView {
  return {
    idx: turn.idx,
    messages: turn.messages,
    rawReply: turn.rawReply,
    reasoning: turn.reasoning,
    action: turn.action,
    observation: turn.observation,
    reward: turn.reward,
    terminated: turn.terminated,
    truncated: turn.truncated,
    info: turn.info,
    latencyMs: turn.latencyMs,
    promptTokens: turn.promptTokens,
    completionTokens: turn.completionTokens,
  };
}

export function toAdapterView(adapter: Adapter): AdapterView {
  return {
    id: adapter.id,
    runId: adapter.runId,
    parentId: adapter.parentId,
    name: adapter.name,
    path: adapter.path,
    status: adapter.status,
    baseModelSha256: adapter.baseModelSha256,
    metrics: adapter.metrics === null || adapter.metrics === undefined ? null : asObject(adapter.metrics),
    createdAt: adapter.createdAt,
  };
}

/** The trainer's log can be long: the detail view shows its last lines. */
const LOG_TAIL_CHARS = 20_000;

export function toAdapterDetail(adapter: Adapter, ancestors: Adapter[], childIds: number[], evalResults: EvalResultView[]): AdapterDetail {
  const log = adapter.log && adapter.log.length > LOG_TAIL_CHARS ? `[… ${adapter.log.length - LOG_TAIL_CHARS} earlier characters]\n${adapter.log.slice(-LOG_TAIL_CHARS)}` : adapter.log;
  return {
    ...toAdapterView(adapter),
    manifest: adapter.manifest === null || adapter.manifest === undefined ? null : asObject(adapter.manifest),
    trainerCommand: adapter.trainerCommand,
    log,
    lineage: ancestors.map(toAdapterView),
    childIds,
    evalResults,
  };
}

export function toEnvSetMemberView(member: EnvSetMember, plays: EnvSetMemberPlays | null = null): EnvSetMemberView {
  return {
    codeSha256: member.codeSha256,
    environmentId: member.environmentId,
    className: member.className,
    skill: member.skill,
    hint: member.hint,
    winRate: member.winRate,
    hintWinRate: member.hintWinRate,
    regret: member.regret,
    source: member.source,
    played: plays && {
      ...plays,
      regret: plays.meanReturn === null || plays.hintMeanReturn === null ? null : Math.max(0, plays.hintMeanReturn - plays.meanReturn),
    },
  };
}

export function toEvalResultView(result: EvalResult): EvalResultView {
  return {
    id: result.id,
    adapterId: result.adapterId,
    suite: result.suite,
    n: result.n,
    correct: result.correct,
    accuracy: result.accuracy,
    meanReturn: result.meanReturn,
    winRate: result.winRate,
    createdAt: result.createdAt,
  };
}

export type { EnvironmentDetail };
