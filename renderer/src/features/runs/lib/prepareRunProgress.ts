import type { RunProgressSnapshot } from "../../../../../shared/api/runTypes.js";
import { formatDuration } from "../../../lib/format/formatNumber.js";

export interface RunProgressView {
  /** One line: "iteration 1 of 3 · playing · designed 3/24 · played 120/384 · about 2 min 10 s left". */
  label: string;
  /** How much of the whole run is done (0..1), or null before anything is countable. */
  fraction: number | null;
}

/**
 * What a running run is doing, in one line for the runs list and the run page. Iterations are
 * numbered as stored (from 0), as the CLI and the report number them. The time left counts down
 * from when the progress was taken.
 */
export function prepareRunProgress(progress: RunProgressSnapshot | null | undefined, now: number = Date.now()): RunProgressView | null {
  if (!progress) return null;
  const parts = [`iteration ${progress.iteration} of ${progress.iterations}`, progress.phase];
  for (const unit of progress.units) parts.push(`${unit.name} ${unit.done}/${unit.total}`);
  if (progress.training) {
    const t = progress.training;
    parts.push(`training round ${t.round}${t.steps > 0 ? ` step ${t.step}/${t.steps}` : ` ${t.phase}`}${t.loss === null ? "" : ` loss ${t.loss.toFixed(4)}`}`);
  }
  if (progress.etaMs !== null) parts.push(`about ${formatDuration(Math.max(0, progress.etaMs - (now - progress.updatedAt)))} left`);
  const played = progress.units.find((unit) => unit.name === "played");
  const within = played && played.total > 0 ? played.done / played.total : 0;
  const fraction = progress.iterations > 0 ? Math.min(1, (progress.iteration + within) / progress.iterations) : null;
  return { label: parts.filter((part) => part.length > 0).join(" · "), fraction };
}
