import { basename } from "node:path";
import type { RunReport, ReportRun } from "../../shared/runReport.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listEnvironments } from "../store/queries/environments.js";
import { listEpisodes, listEpisodeStops } from "../store/queries/episodes.js";
import { getHint } from "../store/queries/hints.js";
import { getRun, listRuns, type Run } from "../store/queries/runs.js";
import { listAdapters } from "../store/queries/adapters.js";
import { listTrainingRounds } from "../store/queries/trainingRounds.js";
import { listRunNotes } from "../store/queries/schedule.js";
import { listCorpusProblems } from "../store/queries/documents.js";
import { getRawReply, listValidationWarnings } from "../store/queries/uiQueries.js";
import { storedRunAblations } from "./describeAblations.js";
import { diagnoseRun } from "./diagnoseRun.js";

/** The `spade report` object: every designer attempt of each run, valid or not, with its plays. */
export function buildRunReport(db: ReadonlyDb, runId?: number): RunReport {
  let runs: Run[];
  if (runId === undefined) runs = listRuns(db).reverse();
  else {
    const run = getRun(db, runId);
    if (!run) throw new Error(`run ${runId} does not exist in this workspace`);
    runs = [run];
  }
  return { runs: runs.map((run) => reportRun(db, run)) };
}

function reportRun(db: ReadonlyDb, run: Run): ReportRun {
  const ablations = storedRunAblations(run.config);
  const adapterId = adapterIdResolver(db);
  const hintSkipped = hintSkipReasons(db, run.id);
  // In schedule order (iteration, slot, attempt), not id order: slots run concurrently, so ids
  // follow completion order and the same seed would otherwise print differently from run to run.
  const environments = listEnvironments(db, { runId: run.id, orderBy: "slot", limit: Number.MAX_SAFE_INTEGER }).map((env) => {
    const episodes = env.valid ? listEpisodes(db, env.id) : [];
    const stops = env.valid ? listEpisodeStops(db, env.id) : new Map<number, string>();
    return {
      id: env.id,
      iteration: env.iteration ?? 0,
      className: env.className,
      valid: env.valid,
      validationError: env.validationError,
      validationWarnings: listValidationWarnings(db, env.id),
      novel: env.novelty === null ? null : env.novelty === "novel",
      hint: getHint(db, env.id)?.text ?? null,
      plays: env.plays ?? 0,
      hintPlays: env.hintPlays ?? 0,
      winRate: env.winRate,
      hintWinRate: env.hintWinRate,
      meanReturn: env.meanReturn,
      hintMeanReturn: env.hintMeanReturn,
      regret: env.regret,
      designerReward: env.designerReward,
      documentId: env.documentId,
      episodes: episodes.map((episode) => ({ id: episode.id, hinted: episode.hinted, return: episode.return, turns: episode.turnCount, error: episode.error, canary: episode.canary, adapterId: adapterId(episode.adapter), stop: stops.get(episode.id) ?? null, rollout: episode.rollout ?? env.iteration ?? 0 })),
      slot: env.slot ?? 0,
      attempt: env.attempt ?? 0,
      skill: env.skill,
      adapterId: adapterId(env.adapter),
      replyHead: env.valid ? null : replyHead(getRawReply(db, env.id)),
      hintSkipped: hintSkipped.get(env.id) ?? null,
    };
  });
  const trainingRounds = listTrainingRounds(db, run.id).map((round) => ({
    round: round.round,
    afterIteration: round.afterIteration,
    status: round.status,
    adapterId: round.adapterId,
    parentAdapterId: round.parentAdapterId,
    metrics: round.metrics,
  }));
  const diagnosis = environments.some((env) => env.valid) ? null : diagnoseRun(db, run);
  const corpusSkipped = listCorpusProblems(db, run.id)[0]?.message ?? null;
  return { id: run.id, status: run.status, iterationsCompleted: run.iterationsCompleted, environments, name: run.name, error: run.error, ablations, trainingRounds, diagnosis, corpusSkipped };
}

/** Why a game's hinted plays were skipped, by environment id (the loop's "hint skipped <id>" notes). */
export function hintSkipReasons(db: ReadonlyDb, runId: number): Map<number, string> {
  const reasons = new Map<number, string>();
  for (const note of listRunNotes(db, runId)) {
    const match = /^hint skipped (\d+)$/.exec(note.kind);
    if (match) reasons.set(Number(match[1]), note.text);
  }
  return reasons;
}

/** Lines of an invalid attempt's reply shown by `spade report`: enough to see what the model wrote. */
const REPLY_HEAD_LINES = 3;
const REPLY_HEAD_CHARS = 300;

/** The reply's first non-empty lines, cut to a few hundred characters; "(no reply)" for an empty one (the model was not called); null when none is stored. */
export function replyHead(reply: string | null): string | null {
  if (reply === null) return null;
  const lines = reply.split("\n").map((line) => line.trimEnd()).filter((line) => line.trim() !== "");
  if (lines.length === 0) return "(no reply)";
  let head = lines.slice(0, REPLY_HEAD_LINES).join("\n");
  if (head.length > REPLY_HEAD_CHARS) head = `${head.slice(0, REPLY_HEAD_CHARS)}…`;
  else if (lines.length > REPLY_HEAD_LINES) head += "\n…";
  return head;
}

/** Recorded adapter names (`<file>[@scale]`) -> registry ids where the file is registered; the name otherwise. */
function adapterIdResolver(db: ReadonlyDb): (recorded: string | null) => string | number | null {
  const byFile = new Map<string, number>();
  for (const adapter of listAdapters(db)) byFile.set(basename(adapter.path), adapter.id);
  return (recorded) => (recorded === null ? null : (byFile.get(recorded) ?? recorded));
}

