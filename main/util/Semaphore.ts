/** One caller waiting for a hold: its grant, and its place in line. */
interface Waiter {
  grant: () => void;
  priority: number;
}

/**
 * At most `limit` holders at once; others wait, a higher `priority` before a lower one and in
 * arrival order within a priority. `acquire` resolves false if aborted while waiting.
 */
export class Semaphore {
  private holders = 0;
  /** Highest priority first, arrival order within one. */
  private readonly queue: Waiter[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`Semaphore limit must be a positive integer, got ${limit}`);
  }

  get active(): number {
    return this.holders;
  }

  /** Callers waiting for a hold right now. */
  get waiting(): number {
    return this.queue.length;
  }

  /** A hold, at once when one is free; `priority` places a waiting caller in line. Defaults to priority 0. */
  acquire(signal?: AbortSignal, priority = 0): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.holders < this.limit) {
      this.holders++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        priority,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(true);
        },
      };
      const onAbort = () => {
        this.queue.splice(this.queue.indexOf(waiter), 1);
        resolve(false);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.splice(placeInLine(this.queue, priority), 0, waiter);
    });
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next.grant();
    else this.holders--;
  }
}

/** Where a waiter of `priority` joins a line kept highest first: behind every waiter of its priority or higher. */
export function placeInLine(line: readonly { priority: number }[], priority: number): number {
  let low = 0;
  let high = line.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (line[middle]!.priority >= priority) low = middle + 1;
    else high = middle;
  }
  return low;
}
