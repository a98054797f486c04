// Held-out results -> base vs each adapter: one row per model, one column per suite (the latest
// result), the change against the base model, and rows for a grouped bar chart. Pure: tested alone.
import type { AdapterView, EvalResultView } from "../../../../shared/api/modelTypes.js";
import { axisTicks, type AxisTicks } from "../charts/axisTicks.js";

/** A suite's headline number: accuracy for question suites, else win rate, else mean return. */
export function evalScore(result: EvalResultView): { value: number; metric: "accuracy" | "winRate" | "meanReturn" } | null {
  if (result.accuracy !== null) return { value: result.accuracy, metric: "accuracy" };
  if (result.winRate !== null) return { value: result.winRate, metric: "winRate" };
  if (result.meanReturn !== null) return { value: result.meanReturn, metric: "meanReturn" };
  return null;
}

export interface EvalCell {
  value: number;
  metric: "accuracy" | "winRate" | "meanReturn";
  n: number;
  /** value minus the base model's on the same suite; null without a base result. */
  delta: number | null;
}

export interface EvalModelRow {
  /** "base" or `adapter<id>`: the chart's series key. */
  key: string;
  adapterId: number | null;
  label: string;
  parentId: number | null;
  scores: Record<string, EvalCell | undefined>;
}

export interface EvalComparison {
  suites: string[];
  models: EvalModelRow[];
  /** One row per suite with each model's score under its key (null: not evaluated there). */
  chartRows: ({ suite: string } & Record<string, number | string | null>)[];
  /** The chart's value axis: 0-100% when every score is a share (accuracy, win rate), else fitted; null without scores. */
  axis: AxisTicks | null;
}

export function modelKey(adapterId: number | null): string {
  return adapterId === null ? "base" : `adapter${adapterId}`;
}

export function prepareEvalComparison(results: readonly EvalResultView[], adapters: readonly AdapterView[]): EvalComparison {
  const latest = new Map<string, EvalResultView>();
  for (const result of [...results].sort((a, b) => a.createdAt - b.createdAt || a.id - b.id)) latest.set(`${modelKey(result.adapterId)}\u0000${result.suite}`, result);
  const suites = [...new Set(results.map((result) => result.suite))].sort();
  const evaluated = new Set(results.map((result) => result.adapterId));
  const byId = new Map(adapters.map((adapter) => [adapter.id, adapter]));
  const ids: (number | null)[] = [null, ...[...evaluated].filter((id): id is number => id !== null).sort((a, b) => a - b)];
  const models = ids.map((adapterId): EvalModelRow => {
    const adapter = adapterId === null ? undefined : byId.get(adapterId);
    const scores: Record<string, EvalCell | undefined> = {};
    for (const suite of suites) {
      const result = latest.get(`${modelKey(adapterId)}\u0000${suite}`);
      const score = result ? evalScore(result) : null;
      if (!result || !score) continue;
      const baseResult = latest.get(`base\u0000${suite}`);
      const base = baseResult ? evalScore(baseResult) : null;
      scores[suite] = { ...score, n: result.n, delta: base && base.metric === score.metric && adapterId !== null ? score.value - base.value : null };
    }
    return { key: modelKey(adapterId), adapterId, label: adapterId === null ? "base model" : (adapter?.name ?? `adapter #${adapterId}`), parentId: adapter?.parentId ?? null, scores };
  });
  const chartRows = suites.map((suite) => {
    const row: { suite: string } & Record<string, number | string | null> = { suite };
    for (const model of models) row[model.key] = model.scores[suite]?.value ?? null;
    return row;
  });
  const cells = models.flatMap((model) => Object.values(model.scores)).filter((cell): cell is EvalCell => cell !== undefined);
  const shares = cells.every((cell) => cell.metric !== "meanReturn");
  const axis = cells.length === 0 ? null : axisTicks(cells.map((cell) => cell.value), { kind: shares ? "rate" : "number" });
  return { suites, models, chartRows, axis };
}
