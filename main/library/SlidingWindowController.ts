import type { SlidingWindowConfig } from "../../shared/libraryConfig.js";

/** One environment's window of difficulties and the count at its top. */
export interface DifficultyWindow {
  low: number;
  high: number;
  /** Plays at `high` since the last promotion check, and how many of them succeeded (return > 0). */
  attemptsAtHigh: number;
  successesAtHigh: number;
}

/**
 * RLVE's sliding-window difficulty controller, the reference's default variant
 * (`spade/core/difficulty_controller.py`): per environment a window [low, high], starting at [0, 0].
 * Only plays at `high` count; after `tauNum` of them, if at least `tauAcc` succeeded and `high` is
 * below `maxDifficulty`, `high` goes up by one and `low` to at least `high - dDelta + 1`; either
 * way the count starts again. A problem's difficulty is drawn uniformly from [low, high].
 */
export class SlidingWindowController {
  private readonly windows = new Map<string, DifficultyWindow>();

  constructor(private readonly config: SlidingWindowConfig) {}

  window(name: string): DifficultyWindow {
    let window = this.windows.get(name);
    if (!window) {
      window = { low: 0, high: 0, attemptsAtHigh: 0, successesAtHigh: 0 };
      this.windows.set(name, window);
    }
    return window;
  }

  /** A difficulty in [low, high], from `random` (a number in [0, 1)). */
  sample(name: string, random: number): number {
    const { low, high } = this.window(name);
    return low + Math.min(high - low, Math.floor(random * (high - low + 1)));
  }

  /** One play's outcome at `difficulty`: a success when its return is above 0. */
  update(name: string, difficulty: number, result: number): void {
    const window = this.window(name);
    if (difficulty !== window.high) return;
    window.attemptsAtHigh += 1;
    if (result > 0) window.successesAtHigh += 1;
    if (window.attemptsAtHigh < this.config.tauNum) return;
    if (window.successesAtHigh / window.attemptsAtHigh >= this.config.tauAcc && window.high < this.config.maxDifficulty) {
      window.high += 1;
      window.low = Math.max(window.low, window.high - this.config.dDelta + 1);
    }
    window.attemptsAtHigh = 0;
    window.successesAtHigh = 0;
  }
}
