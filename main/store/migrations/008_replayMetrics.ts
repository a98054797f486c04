import { parseRunConfig, type RunConfig } from "../../../shared/runConfig.js";
import { iterationMetrics } from "../../selfplay/iterationMetrics.js";
import type { Diversity, DiversityKernel } from "../../selfplay/vendiScore.js";
import type { WritableDb } from "../DatabaseHandle.js";
import { getMetrics, putMetrics, type MetricRecord } from "../queries/metrics.js";
import type { Migration } from "./Migration.js";

/**
 * Runs stored before replay rollouts were measured on their own plays kept metrics rows that say
 * `episodes 0`, `tokens 0` and null win rate, regret and hinted win rate for a rollout whose plays
 * are stored (and a null designer reward in the rollout that scores a batch). Each such row is
 * measured again by the code that measures a rollout now (`iterationMetrics`), from the stored
 * plays; the row's wall time and diversity are kept as stored (the diversity may be an embedding
 * kernel's, which cannot be measured here). A row is repaired only while it still says 0 episodes
 * for a rollout with stored plays, so running it again changes nothing; a run whose stored config
 * this version cannot read is left as it is. It runs in the migration's transaction.
 *
 * The one migration that reads through the engine's code (main/selfplay): the same measure as a
 * run's, rather than a copy of it that could drift.
 */
export const replayMetricsMigration: Migration = {
  version: 8,
  name: "replay metrics",
  up(db) {
    repairReplayMetrics(db);
    repairDesignerRewards(db);
  },
};

/** Repairs every stale rollout row (see the migration); returns how many rows it measured again. */
export function repairReplayMetrics(db: WritableDb): number {
  const stale = rowsToRepair(
    db,
    `m.name = 'episodes' AND m.value = 0
     AND EXISTS (SELECT 1 FROM episodes p JOIN environments e ON e.id = p.environment_id
                  WHERE p.run_id = m.run_id AND e.valid = 1 AND COALESCE(p.rollout, e.iteration) = m.iteration)`,
  );
  for (const { runId, iteration, config } of stale) {
    const stored = getMetrics(db, runId).find((entry) => entry.iteration === iteration)?.metrics ?? {};
    const wallTimeMs = typeof stored.wallTimeMs === "number" ? stored.wallTimeMs : 0;
    putMetrics(db, runId, iteration, iterationMetrics(db, runId, iteration, config, wallTimeMs, { diversity: storedDiversity(stored) }));
  }
  return stale.length;
}

/** Sets the designer reward of every row that stored it null while its rollout scores a batch with stored rewards; returns how many rows it set. */
export function repairDesignerRewards(db: WritableDb): number {
  let repaired = 0;
  for (const { runId, iteration, config } of rowsToRepair(db, `m.name = 'designerReward' AND m.value IS NULL AND m.json IS NULL`)) {
    // The diversity is not needed here (and is not measured: it can cost a kernel over every game).
    const { designerReward } = iterationMetrics(db, runId, iteration, config, 0, { diversity: null });
    if (typeof designerReward !== "number") continue;
    putMetrics(db, runId, iteration, { designerReward });
    repaired += 1;
  }
  return repaired;
}

/** The metrics rows that `condition` (SQL over `m`, the metrics row) picks, in run and iteration order, of the runs whose stored config this version reads, each with that config (read once per run). */
function rowsToRepair(db: WritableDb, condition: string): { runId: number; iteration: number; config: RunConfig }[] {
  const rows = db
    .prepare(`SELECT m.run_id AS runId, m.iteration AS iteration, r.config AS config FROM metrics m JOIN runs r ON r.id = m.run_id WHERE ${condition} ORDER BY m.run_id, m.iteration`)
    .all() as { runId: number; iteration: number; config: string | null }[];
  const configs = new Map<number, RunConfig | null>();
  return rows.flatMap(({ runId, iteration, config: text }) => {
    if (!configs.has(runId)) configs.set(runId, readConfig(text));
    const config = configs.get(runId) ?? null;
    return config === null ? [] : [{ runId, iteration, config }];
  });
}

function readConfig(text: string | null): RunConfig | null {
  try {
    return parseRunConfig(JSON.parse(text ?? "null"), "stored run config");
  } catch {
    return null;
  }
}

/** The diversity as the row stored it; null when it stored none. */
function storedDiversity(stored: MetricRecord): Diversity | null {
  const about = stored.diversity;
  if (typeof stored.vendiScore !== "number" || typeof stored.vendiPerN !== "number" || about === null || typeof about !== "object" || Array.isArray(about)) return null;
  const { kernel, games } = about as { kernel?: unknown; games?: unknown };
  if (typeof kernel !== "string" || typeof games !== "number") return null;
  return { vendiScore: stored.vendiScore, vendiPerN: stored.vendiPerN, n: games, kernel: kernel as DiversityKernel };
}
