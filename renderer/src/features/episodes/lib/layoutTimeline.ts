// Reward timeline geometry in pixels: the line as one SVG path (gaps break it), end markers,
// axis ticks, and the mapping between steps and x. Pure: tested alone.
import { downsampleTimeline } from "./downsampleTimeline.js";
import type { TimelinePoint } from "./prepareReplay.js";

export interface TimelineBox {
  width: number;
  height: number;
  /** Room for the y labels. Defaults to 34. */
  left?: number;
  /** Room for the x labels. Defaults to 16. */
  bottom?: number;
  /** Defaults to 6. */
  top?: number;
  /** Defaults to 8. */
  right?: number;
}

export interface Tick {
  at: number;
  label: string;
}

export interface TimelineLayout {
  /** The plot area. */
  plot: { left: number; top: number; width: number; height: number };
  /** SVG path data of the reward line ("" when there is no reward at all). */
  path: string;
  /** The drawn points (after downsampling), for dots on short timelines. */
  vertices: { x: number; y: number }[];
  /** Where an episode ended (terminated or truncated), at that step's reward. */
  ends: { x: number; y: number }[];
  xTicks: Tick[];
  yTicks: Tick[];
  /** The first and last step on the x axis. */
  steps: [number, number];
}

/** About `count` round tick values covering [min, max] (1, 2 or 5 times a power of ten apart). */
export function niceTicks(min: number, max: number, count: number): number[] {
  if (!(max > min)) return [min];
  const rough = (max - min) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let value = Math.ceil(min / step) * step; value <= max + step * 1e-9; value += step) ticks.push(Number(value.toPrecision(12)));
  return ticks;
}

function label(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(3)));
}

export function xForStep(layout: Pick<TimelineLayout, "plot" | "steps">, step: number): number {
  const [first, last] = layout.steps;
  const span = last - first;
  return layout.plot.left + (span === 0 ? layout.plot.width / 2 : ((step - first) / span) * layout.plot.width);
}

/** The step under pixel `x` (clamped to the timeline). */
export function stepAtX(layout: Pick<TimelineLayout, "plot" | "steps">, x: number): number {
  const [first, last] = layout.steps;
  const fraction = layout.plot.width <= 0 ? 0 : (x - layout.plot.left) / layout.plot.width;
  return Math.min(last, Math.max(first, Math.round(first + fraction * (last - first))));
}

export function layoutTimeline(points: readonly TimelinePoint[], box: TimelineBox): TimelineLayout {
  const left = box.left ?? 34;
  const bottom = box.bottom ?? 16;
  const top = box.top ?? 6;
  const right = box.right ?? 8;
  const plot = { left, top, width: Math.max(0, box.width - left - right), height: Math.max(0, box.height - top - bottom) };
  const first = points[0]?.step ?? 1;
  const last = points[points.length - 1]?.step ?? 1;
  const rewards = points.map((p) => p.reward).filter((r): r is number => r !== null);
  let low = Math.min(0, ...rewards);
  let high = Math.max(0, ...rewards);
  if (high === low) high = low + 1;
  const yTickValues = niceTicks(low, high, 3);
  low = Math.min(low, yTickValues[0] ?? low);
  high = Math.max(high, yTickValues[yTickValues.length - 1] ?? high);
  const layout = { plot, steps: [first, last] as [number, number] };
  const yOf = (reward: number) => plot.top + plot.height - ((reward - low) / (high - low)) * plot.height;

  const shown = downsampleTimeline(points, Math.max(4, Math.floor(plot.width)));
  let path = "";
  let pen = false;
  const vertices: { x: number; y: number }[] = [];
  for (const point of shown) {
    if (point.reward === null) {
      pen = false;
      continue;
    }
    const vertex = { x: xForStep(layout, point.step), y: yOf(point.reward) };
    vertices.push(vertex);
    path += `${pen ? "L" : "M"}${vertex.x.toFixed(1)},${vertex.y.toFixed(1)}`;
    pen = true;
  }
  const ends = points.filter((p) => p.end !== null).map((p) => ({ x: xForStep(layout, p.step), y: yOf(p.end ?? 0) }));
  const xTicks = niceTicks(first, last, Math.max(2, Math.floor(plot.width / 80)))
    .filter((step) => Number.isInteger(step))
    .map((step) => ({ at: xForStep(layout, step), label: label(step) }));
  const yTicks = yTickValues.map((value) => ({ at: yOf(value), label: label(value) }));
  return { plot, path, vertices, ends, xTicks, yTicks, steps: [first, last] };
}
