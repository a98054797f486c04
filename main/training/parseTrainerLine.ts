/** What a trainer's log line tells the workbench besides being logged. */
export type TrainerSignal = { progress: number } | { metric: string; value: number } | null;

/**
 * The trainer line conventions: `PROGRESS <0..1>` reports progress (clamped), and
 * `METRIC <name> <number>` records a metric (the last value of each name is kept).
 */
export function parseTrainerLine(line: string): TrainerSignal {
  const progress = /^PROGRESS\s+([-+]?\d*\.?\d+(?:e[-+]?\d+)?)\s*$/i.exec(line.trim());
  if (progress) return { progress: Math.min(1, Math.max(0, Number(progress[1]))) };
  const metric = /^METRIC\s+([\w./-]+)\s+([-+]?\d*\.?\d+(?:e[-+]?\d+)?)\s*$/i.exec(line.trim());
  if (metric) return { metric: metric[1]!, value: Number(metric[2]) };
  return null;
}
