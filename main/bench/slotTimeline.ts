import type { PlayMark } from "../rollout/PlayTrace.js";
import { median } from "../util/median.js";
import type { TracedRequest } from "./traceRequests.js";

/** A play's moment as the engine passed it (see `PlayTrace`). */
export interface TracedMark {
  play: string;
  mark: PlayMark;
  at: number;
}

/**
 * What the play whose request comes next on a slot was doing while the slot was idle: "notStarted"
 * (its unit had not started: the play limit was full, or it waited for its canary, its game's design
 * or validation), "open" (the sandbox pool was finding it a session), "reset" (the environment's
 * reset, up to the first observation), "firstRequest" (from the first observation to the first
 * request), "step" (from an answer to the environment's reply to the action), "betweenTurns" (from
 * that reply to the next request), "design" (a designer or hint call, whose inputs were not ready).
 */
export type GapCause = "notStarted" | "open" | "reset" | "firstRequest" | "step" | "betweenTurns" | "design";

const causeOf: Record<PlayMark, GapCause> = {
  started: "open",
  opening: "open",
  opened: "reset",
  observed: "firstRequest",
  asking: "betweenTurns",
  answered: "step",
  stepped: "betweenTurns",
  closed: "betweenTurns",
  stored: "betweenTurns",
};

/** One server slot over a rollout, in ms. */
export interface SlotFigures {
  /** Holding a request (from the backend's call to its return). */
  busyMs: number;
  /** Idle from the rollout's start to the slot's first request. */
  startMs: number;
  /** Idle between one request's return and the next request on the slot. */
  betweenMs: number;
  /** Idle from the slot's last request to the rollout's end. */
  tailMs: number;
}

/** Where the slot time of a rollout went: per slot, and every idle stretch by its cause, in ms. */
export interface SlotTimeline {
  slots: SlotFigures[];
  busyMs: number;
  /** Idle before each slot's first request, by cause. */
  start: Record<GapCause, number>;
  /** Idle between requests, by cause. */
  between: Record<GapCause, number>;
  /** Idle after each slot's last request. */
  tailMs: number;
  /** Requests in flight, averaged over the rollout. */
  meanInFlight: number;
  /** From a request's return to the next request on its slot: median and 90th percentile, in ms (null without any). */
  handoverP50Ms: number | null;
  handoverP90Ms: number | null;
}

const noCauses = (): Record<GapCause, number> => ({ notStarted: 0, open: 0, reset: 0, firstRequest: 0, step: 0, betweenTurns: 0, design: 0 });

/**
 * The server's slots over one rollout, rebuilt from the engine's own records: the backend lets
 * `slots` requests through at once, first called first served, so each request takes the slot that
 * freed first, when it is called or when that slot frees, whichever is later. Each idle stretch is
 * put down to what the play of the slot's next request was doing meanwhile (its marks).
 */
export function slotTimeline(requests: readonly TracedRequest[], marks: readonly TracedMark[], options: { slots: number; startAt: number; endAt: number }): SlotTimeline {
  const byPlay = new Map<string, TracedMark[]>();
  for (const mark of [...marks].sort((a, b) => a.at - b.at)) {
    const list = byPlay.get(mark.play);
    if (list) list.push(mark);
    else byPlay.set(mark.play, [mark]);
  }
  const slots: SlotFigures[] = Array.from({ length: options.slots }, () => ({ busyMs: 0, startMs: 0, betweenMs: 0, tailMs: 0 }));
  const freeAt: number[] = slots.map(() => options.startAt);
  const used: boolean[] = slots.map(() => false);
  const start = noCauses();
  const between = noCauses();
  const handovers: number[] = [];
  /** Splits the idle stretch [from, to) by what `key`'s play was doing, into `into`. */
  const attribute = (key: string, from: number, to: number, into: Record<GapCause, number>) => {
    if (to <= from) return;
    const list = byPlay.get(key);
    if (key === "design" || !list) {
      into[key === "design" ? "design" : "notStarted"] += to - from;
      return;
    }
    let cause: GapCause = "notStarted";
    let at = from;
    for (const mark of list) {
      if (mark.at >= to) break;
      if (mark.at > at) {
        into[cause] += mark.at - at;
        at = mark.at;
      }
      cause = causeOf[mark.mark];
    }
    into[cause] += to - at;
  };
  for (const request of [...requests].sort((a, b) => a.calledAt - b.calledAt)) {
    let slot = 0;
    for (let i = 1; i < freeAt.length; i++) if (freeAt[i]! < freeAt[slot]!) slot = i;
    const admitted = Math.min(Math.max(request.calledAt, freeAt[slot]!), request.returnedAt);
    const idle = Math.max(0, admitted - freeAt[slot]!);
    if (used[slot]) {
      slots[slot]!.betweenMs += idle;
      handovers.push(idle);
      attribute(request.key, freeAt[slot]!, admitted, between);
    } else {
      slots[slot]!.startMs += idle;
      attribute(request.key, freeAt[slot]!, admitted, start);
    }
    slots[slot]!.busyMs += request.returnedAt - admitted;
    freeAt[slot] = Math.max(freeAt[slot]!, request.returnedAt);
    used[slot] = true;
  }
  slots.forEach((figures, slot) => {
    if (used[slot]) figures.tailMs = Math.max(0, options.endAt - freeAt[slot]!);
    else {
      figures.startMs = options.endAt - options.startAt;
      start.notStarted += figures.startMs;
    }
  });
  const sorted = [...handovers].sort((a, b) => a - b);
  const busyMs = slots.reduce((sum, figures) => sum + figures.busyMs, 0);
  return {
    slots,
    busyMs,
    start,
    between,
    tailMs: slots.reduce((sum, figures) => sum + figures.tailMs, 0),
    meanInFlight: busyMs / Math.max(1e-9, options.endAt - options.startAt),
    handoverP50Ms: median(handovers) ?? null,
    handoverP90Ms: sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(0.9 * sorted.length))]! : null,
  };
}
