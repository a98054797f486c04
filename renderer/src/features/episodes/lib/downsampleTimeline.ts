// A long episode's reward timeline cut down to what the plot can show: per bucket of steps the
// lowest and highest reward (so a spike is never lost), a gap when any step in it has no reward,
// and every episode-end marker. Pure: tested alone.
import type { TimelinePoint } from "./prepareReplay.js";

/** At most about `maxPoints` points (2 per bucket plus end markers); short timelines come back as they are. */
export function downsampleTimeline(points: readonly TimelinePoint[], maxPoints: number): TimelinePoint[] {
  if (points.length <= maxPoints || maxPoints < 4) return [...points];
  const buckets = Math.floor(maxPoints / 2);
  const size = points.length / buckets;
  const kept: TimelinePoint[] = [];
  for (let b = 0; b < buckets; b++) {
    const bucket = points.slice(Math.floor(b * size), Math.floor((b + 1) * size));
    let low: TimelinePoint | null = null;
    let high: TimelinePoint | null = null;
    const picked = new Set<TimelinePoint>();
    for (const point of bucket) {
      if (point.end !== null) picked.add(point);
      if (point.reward === null) {
        picked.add(point);
        continue;
      }
      if (!low || point.reward < (low.reward ?? 0)) low = point;
      if (!high || point.reward > (high.reward ?? 0)) high = point;
    }
    if (low) picked.add(low);
    if (high) picked.add(high);
    const ordered = [...picked].sort((a, c) => a.step - c.step);
    // Keep only the first gap of a bucket: one break in the line says it.
    let gap = false;
    for (const point of ordered) {
      if (point.reward === null) {
        if (gap) continue;
        gap = true;
      }
      kept.push(point);
    }
  }
  return kept;
}
