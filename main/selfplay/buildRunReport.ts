import type { RunReport, ReportRun } from "../../shared/runReport.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listEnvironments } from "../store/queries/environments.js";
import { listEpisodes } from "../store/queries/episodes.js";
import { getHint } from "../store/queries/hints.js";
import { getRun, listRuns, type Run } from "../store/queries/runs.js";
import { storedRunAblations } from "./describeAblations.js";

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
  const environments = listEnvironments(db, { runId: run.id, orderBy: "id", limit: Number.MAX_SAFE_INTEGER }).map((env) => {
    const episodes = env.valid ? listEpisodes(db, env.id) : [];
    return {
      id: env.id,
      iteration: env.iteration ?? 0,
      className: env.className,
      valid: env.valid,
      validationError: env.validationError,
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
      episodes: episodes.map((episode) => ({ id: episode.id, hinted: episode.hinted, return: episode.return, turns: episode.turnCount, error: episode.error, canary: episode.canary })),
      slot: env.slot ?? 0,
      attempt: env.attempt ?? 0,
      skill: env.skill,
    };
  });
  return { id: run.id, status: run.status, iterationsCompleted: run.iterationsCompleted, environments, name: run.name, error: run.error, ablations };
}
