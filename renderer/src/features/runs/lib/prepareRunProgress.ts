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
 * from when the progress was taken. The bar counts whole rollouts, and within one its designed
 * games (when it designs) and its plays, each half of it.
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
  // A rollout that designs is half designing, half playing (the counts the engine sends), so the bar moves from the first game designed.
  const stages = ["designed", "played"].map((name) => progress.units.find((unit) => unit.name === name)).filter((unit) => unit !== undefined);
  // No plays to make once every game is designed (all invalid): the playing half is done.
  const share = (unit: (typeof stages)[number], i: number) => (unit.total > 0 ? Math.min(1, unit.done / unit.total) : i > 0 && stages.slice(0, i).every((before) => before.done >= before.total) ? 1 : 0);
  const within = stages.length === 0 ? 0 : stages.reduce((sum, unit, i) => sum + share(unit, i), 0) / stages.length;
  const fraction = progress.iterations > 0 ? Math.min(1, (progress.iteration + within) / progress.iterations) : null;
  return { label: parts.filter((part) => part.length > 0).join(" · "), fraction };
}
