import { episodeReturn, withHint, type PlayedStep, type PlayReport } from "../../shared/environment.js";
import type { EnvSession } from "./EnvSession.js";
import type { SandboxPool } from "./SandboxPool.js";

export interface PlayOptions {
  /** The seed passed to `reset`. */
  seed: number;
  /** Actions sent in order; playing stops early when the episode terminates or is truncated. Defaults to none. */
  actions?: string[];
  /** Append the environment's own `hint()` to the first observation as `\n\nHINT: <hint>`. Defaults to false. */
  hint?: boolean;
  /** A run's turn limit: the class built as the run's plays build it, its own `max_turns` capped at this (SandboxPool's `maxTurns`). Defaults to null (built without arguments). */
  maxTurns?: number | null;
}

/**
 * Plays one scripted episode: reset with the seed, optionally the hint, then the actions. Errors
 * of the environment (exceptions, timeouts, memory) end the episode and land in `error`; the
 * report keeps what ran before. Same code, seed and actions give the same report.
 */
export async function playEnvironment(pool: Pick<SandboxPool, "open">, code: string, options: PlayOptions): Promise<PlayReport> {
  const report: PlayReport = { className: "", seed: options.seed, reset: { observation: "", info: {} }, steps: [], return: 0, error: null };
  let session: EnvSession | null = null;
  try {
    session = await pool.open(code, { maxTurns: options.maxTurns ?? null });
    report.className = session.className;
    report.reset = await session.reset(options.seed);
    if (options.hint) {
      const hint = await session.hint();
      if (hint === null) throw new Error(`${session.className} defines no hint(), so --hint cannot add one`);
      report.reset = { ...report.reset, observation: withHint(report.reset.observation, hint) };
    }
    for (const action of options.actions ?? []) {
      const step = await session.step(action);
      const played: PlayedStep = { action, ...step };
      report.steps.push(played);
      if (step.terminated || step.truncated) break;
    }
  } catch (error) {
    report.error = error instanceof Error ? error.message : String(error);
  } finally {
    await session?.close();
  }
  report.return = episodeReturn(report.steps.at(-1));
  return report;
}
