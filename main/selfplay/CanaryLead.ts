import type { ResetResult, StepResult } from "../../shared/environment.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { SandboxTimeoutError } from "../sandbox/errors.js";

/** A following play's step waited on a canary that hit the deadline: the play is dropped, as the game's plays not yet started are skipped. */
export class CanaryHungError extends Error {
  override readonly name = "CanaryHungError";
  constructor() {
    super("the game's canary play hit the deadline: this play is dropped with the rest of the game's plays this rollout");
  }
}

interface Waiter {
  step: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * A game's canary play leads its other plays through a rollout (`canary`), so that a game that
 * hangs costs one deadline and one process, not one per play, without the server waiting for the
 * whole canary play before the game's other plays start:
 * - the others start once the canary's `reset` has answered (`resetPassed`): a game that hangs in
 *   its reset hangs only the canary;
 * - each other play's k-th `step` waits until the canary's k-th step has answered, or the canary
 *   has ended: a game that hangs in its canary's k-th step hangs no other play, whose k-th step is
 *   never sent. They are dropped (`CanaryHungError`), as the game's plays not yet started are skipped.
 * An answer that is an error other than the deadline (the step raised, the sandbox ran out of
 * memory) lets the others go on: it is the canary's own outcome, not a hang.
 */
export class CanaryLead {
  /** Resolves once the canary's reset answered other than by the deadline (or the canary ended so). */
  readonly resetPassed: Promise<void>;
  private passReset!: () => void;
  /** Steps of the canary that answered. */
  private steps = 0;
  private ended: "done" | "hung" | null = null;
  private waiters: Waiter[] = [];

  constructor() {
    this.resetPassed = new Promise((resolve) => (this.passReset = resolve));
  }

  /** True once the canary hit the deadline. */
  get hung(): boolean {
    return this.ended === "hung";
  }

  /** The canary's session: its reset and steps move the lead. */
  lead(session: EnvSession): EnvSession {
    const track = async <T>(call: () => Promise<T>, passed: () => void): Promise<T> => {
      try {
        const result = await call();
        passed();
        return result;
      } catch (error) {
        if (error instanceof SandboxTimeoutError) this.end(true);
        else passed();
        throw error;
      }
    };
    return withCalls(session, {
      reset: (seed) => track(() => session.reset(seed), () => this.passReset()),
      step: (action) => track(() => session.step(action), () => this.stepped()),
    });
  }

  /** Another play's session: each of its steps waits for the canary's step of the same index (see `FollowingSession`). */
  follow(session: EnvSession): FollowingSession {
    let steps = 0;
    const following: FollowingSession = {
      cut: false,
      session: withCalls(session, {
        reset: (seed) => {
          if (this.hung) return this.cut(following);
          return session.reset(seed);
        },
        step: async (action) => {
          steps++;
          try {
            await this.before(steps);
          } catch (error) {
            following.cut = true;
            throw error;
          }
          return session.step(action);
        },
      }),
    };
    return following;
  }

  /** The canary ended (`hung`: by the deadline): every step waiting goes on, or is dropped. */
  end(hung: boolean): void {
    if (this.ended !== null) return;
    this.ended = hung ? "hung" : "done";
    // A canary that hung in its reset never passes it: the loop waits for the canary's end (the game is then marked hung).
    if (!hung) this.passReset();
    for (const waiter of this.waiters) {
      if (hung) waiter.reject(new CanaryHungError());
      else waiter.resolve();
    }
    this.waiters = [];
  }

  private stepped(): void {
    this.steps++;
    const ready = this.waiters.filter((waiter) => waiter.step <= this.steps);
    this.waiters = this.waiters.filter((waiter) => waiter.step > this.steps);
    for (const waiter of ready) waiter.resolve();
  }

  private before(step: number): Promise<void> {
    if (this.ended === "hung") return Promise.reject(new CanaryHungError());
    if (this.ended === "done" || step <= this.steps) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ step, resolve, reject }));
  }

  private cut(following: FollowingSession): Promise<never> {
    following.cut = true;
    return Promise.reject(new CanaryHungError());
  }
}

/** A play that follows the canary: its session, and whether the canary's hang cut it short (then nothing of it is stored). */
export interface FollowingSession {
  session: EnvSession;
  cut: boolean;
}

/** `session` with its reset and step replaced, everything else its own. */
function withCalls(session: EnvSession, calls: { reset: (seed: number) => Promise<ResetResult>; step: (action: string) => Promise<StepResult> }): EnvSession {
  return {
    get className() {
      return session.className;
    },
    get kind() {
      return session.kind;
    },
    get tools() {
      return session.tools;
    },
    get framing() {
      return session.framing;
    },
    reset: calls.reset,
    step: calls.step,
    hint: () => session.hint(),
    solution: () => session.solution(),
    close: () => session.close(),
  };
}
