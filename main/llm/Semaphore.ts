/** At most `limit` holders at once; others wait in arrival order. `acquire` resolves false if aborted while waiting. */
export class Semaphore {
  private holders = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`Semaphore limit must be a positive integer, got ${limit}`);
  }

  get active(): number {
    return this.holders;
  }

  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.holders < this.limit) {
      this.holders++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(true);
      };
      const onAbort = () => {
        this.queue.splice(this.queue.indexOf(grant), 1);
        resolve(false);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(grant);
    });
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.holders--;
  }
}
