import type { RunTrainingView, TrainingRoundView } from "../../../../../shared/api/trainingTypes.js";
import type { ChartRow } from "../../../lib/charts/prepareMetricSeries.js";

/** One iteration on the run's axis: the adapter its plays were sampled with, and the round trained after it. */
export interface IterationAxisRow {
  iteration: number;
  /** The recorded adapter names of its plays (null: the base model); several when a resume switched mid-iteration. */
  adapters: (string | null)[];
  episodes: number;
  /** The round trained after this iteration, if any. */
  round: TrainingRoundView | null;
}

/** The training curves: one row per round, placed at the iteration it trained after; gaps stay null. */
export const trainingCurveKeys = ["loss", "kl", "clippedFraction", "meanRatio", "maxRatio", "gradNorm"] as const;

export interface TrainingRoundsData {
  axis: IterationAxisRow[];
  curves: ChartRow[];
  /** Which curves have at least one value. */
  curveKeys: string[];
  /** Rounds with an adapter, each with its parent's name for the lineage link (null: the base model). */
  lineage: { round: number; adapterId: number; adapterName: string; parentAdapterId: number | null; parentName: string | null; status: TrainingRoundView["status"] }[];
}

/** Prepares the run page's training card: iteration axis, curves and lineage (pure, tested). */
export function prepareTrainingRounds(view: RunTrainingView): TrainingRoundsData {
  const byIteration = new Map<number, IterationAxisRow>();
  const row = (iteration: number) => {
    let entry = byIteration.get(iteration);
    if (!entry) byIteration.set(iteration, (entry = { iteration, adapters: [], episodes: 0, round: null }));
    return entry;
  };
  for (const { iteration, adapter, episodes } of view.iterations) {
    const entry = row(iteration);
    entry.adapters.push(adapter);
    entry.episodes += episodes;
  }
  for (const round of view.rounds) row(round.afterIteration).round = round;
  const axis = [...byIteration.values()].sort((a, b) => a.iteration - b.iteration);

  const curves: ChartRow[] = view.rounds.map((round) => {
    const values: Record<string, number | null> = {};
    for (const key of trainingCurveKeys) values[key] = typeof round.metrics[key] === "number" ? round.metrics[key]! : null;
    return { iteration: round.afterIteration, ...values };
  });
  const curveKeys = trainingCurveKeys.filter((key) => curves.some((curve) => curve[key] !== null));

  const names = new Map(view.rounds.filter((round) => round.adapterId !== null).map((round) => [round.adapterId!, round.adapterName]));
  const lineage = view.rounds
    .filter((round) => round.adapterId !== null)
    .map((round) => ({
      round: round.round,
      adapterId: round.adapterId!,
      adapterName: round.adapterName ?? `adapter ${round.adapterId}`,
      parentAdapterId: round.parentAdapterId,
      parentName: round.parentAdapterId === null ? null : (names.get(round.parentAdapterId) ?? `adapter ${round.parentAdapterId}`),
      status: round.status,
    }));
  return { axis, curves, curveKeys, lineage };
}
