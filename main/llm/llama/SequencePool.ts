import type { LlamaContext, LlamaContextSequence, Token } from "node-llama-cpp";
import { placeInLine } from "../../util/Semaphore.js";

interface Waiter {
  tokens: Token[];
  priority: number;
  resolve: (sequence: LlamaContextSequence | null) => void;
  signal?: AbortSignal;
  onAbort: () => void;
}

/**
 * The sequences of one context, lent out one call at a time and reused (never leaked: a disposed
 * sequence frees its slot asynchronously). A free sequence whose cached tokens share the longest
 * prefix with the new prompt is preferred, so the next turn of an episode re-evaluates only what is
 * new. Waiting callers are served a higher priority first, in arrival order within one.
 */
export class SequencePool {
  private readonly free: LlamaContextSequence[];
  private readonly waiters: Waiter[] = [];
  private idleWaiters: Array<() => void> = [];
  private lent = 0;

  constructor(readonly context: LlamaContext) {
    this.free = Array.from({ length: context.totalSequences }, () => context.getSequence());
  }

  get size(): number {
    return this.context.totalSequences;
  }

  /** Sequences lent out right now. */
  get active(): number {
    return this.lent;
  }

  /** A sequence for `tokens`, or null if `signal` aborts while waiting; `priority` places a waiting call in line. Defaults to priority 0. */
  acquire(tokens: Token[], signal?: AbortSignal, priority = 0): Promise<LlamaContextSequence | null> {
    if (signal?.aborted) return Promise.resolve(null);
    if (this.free.length > 0) {
      this.lent++;
      return Promise.resolve(this.takeBest(tokens));
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        tokens,
        priority,
        resolve,
        signal,
        onAbort: () => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          resolve(null);
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.waiters.splice(placeInLine(this.waiters, priority), 0, waiter);
    });
  }

  release(sequence: LlamaContextSequence): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(sequence);
      return;
    }
    this.free.push(sequence);
    this.lent--;
    if (this.lent === 0) {
      for (const resolve of this.idleWaiters) resolve();
      this.idleWaiters = [];
    }
  }

  /** Resolves when no sequence is lent out. */
  idle(): Promise<void> {
    if (this.lent === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async dispose(): Promise<void> {
    for (const waiter of this.waiters.splice(0)) waiter.resolve(null);
    await this.context.dispose();
  }

  private takeBest(tokens: Token[]): LlamaContextSequence {
    let best = 0;
    let bestShared = -1;
    this.free.forEach((sequence, index) => {
      const shared = sequence.compareContextTokens(tokens).firstDifferentIndex;
      if (shared > bestShared) [best, bestShared] = [index, shared];
    });
    return this.free.splice(best, 1)[0]!;
  }
}
