import { setTimeout as sleep } from "node:timers/promises";
import type { SandboxPool } from "../sandbox/SandboxPool.js";
import { median } from "../util/median.js";
import { benchEnvironmentCode, benchGuess } from "./benchEnvironment.js";

export interface IdlePenalty {
  /** The pause before each timed call, in ms (about one model turn). */
  idleMs: number;
  /** Median sandbox step of the bench game, calls back to back, in ms. */
  stepBackToBackMs: number;
  /** The same steps, each after `idleMs` of idleness, in ms. */
  stepAfterIdleMs: number;
  /** Median of a fixed piece of engine-like JavaScript (JSON of a recorded turn), back to back, in ms. */
  jsBackToBackMs: number;
  /** The same work, each time after `idleMs` of idleness, in ms. */
  jsAfterIdleMs: number;
}

const SAMPLES = 30;

const p50 = (values: number[]): number => median(values) ?? Number.NaN;

/** A recorded turn's worth of JSON work: what the engine does with a turn's messages and results. */
function turnJson(): () => void {
  const turn = {
    messages: Array.from({ length: 6 }, (_, index) => ({ role: index % 2 ? "assistant" : "user", content: `${benchGuess(index)} `.repeat(12) })),
    info: { turn: 3, valid: true, bulls: 1, cows: 2 },
    tokenIds: Array.from({ length: 24 }, (_, index) => index * 7),
  };
  return () => {
    for (let round = 0; round < 10; round++) JSON.parse(JSON.stringify(turn));
  };
}

/**
 * What idleness costs on this machine, side by side: the same sandbox step and the same in-process
 * JavaScript timed back to back and after a pause as long as a model turn (when the engine waits
 * for the model, the CPU it runs on goes idle, and work right after that runs slower).
 */
export async function measureIdlePenalty(pool: SandboxPool, idleMs: number): Promise<IdlePenalty> {
  const session = await pool.open(benchEnvironmentCode());
  try {
    let turn = 0;
    const step = async (): Promise<number> => {
      if (turn % 8 === 0) await session.reset(turn);
      const start = performance.now();
      await session.step(benchGuess(turn++));
      return performance.now() - start;
    };
    const work = turnJson();
    const js = (): number => {
      const start = performance.now();
      work();
      return performance.now() - start;
    };
    for (let warm = 0; warm < 10; warm++) {
      await step();
      js();
    }
    const stepHot: number[] = [];
    const jsHot: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample++) {
      stepHot.push(await step());
      jsHot.push(js());
    }
    const stepIdle: number[] = [];
    const jsIdle: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample++) {
      await sleep(idleMs);
      stepIdle.push(await step());
      await sleep(idleMs);
      jsIdle.push(js());
    }
    return { idleMs, stepBackToBackMs: p50(stepHot), stepAfterIdleMs: p50(stepIdle), jsBackToBackMs: p50(jsHot), jsAfterIdleMs: p50(jsIdle) };
  } finally {
    await session.close();
  }
}
