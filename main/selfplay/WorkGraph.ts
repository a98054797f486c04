/** One unit of work of an iteration: what it needs done before it starts, and what it does. */
export interface WorkUnit<Kind extends string = string> {
  /** Unique within the graph, e.g. "design:3:0". */
  id: string;
  kind: Kind;
  /** Units that must have finished first. */
  after: readonly string[];
  run(): Promise<void>;
}

export interface WorkGraphRunOptions<Kind extends string> {
  /** Units of a kind in flight at once. Defaults to no limit for kinds not named. */
  limits?: Partial<Record<Kind, number>>;
  /** Aborting stops issuing units; running ones finish (they see the signal themselves). */
  signal?: AbortSignal;
  /** Called as a unit starts and as it ends (progress and benchmarks). */
  onChange?: (event: { unit: WorkUnit<Kind>; phase: "started" | "finished"; inFlight: number }) => void;
}

/** A unit's dependency names no unit of the graph, or the dependencies form a cycle. */
export class WorkGraphError extends Error {
  override readonly name = "WorkGraphError";
}

/**
 * The work of an iteration as data: units and the units they wait for. `run` starts every unit as
 * soon as its dependencies are done, within the per-kind limits, first ready first started; so the loop says what depends on what and this decides when. The first
 * failure stops issuing and is thrown once the units in flight have settled.
 */
export class WorkGraph<Kind extends string = string> {
  private readonly units = new Map<string, WorkUnit<Kind>>();

  add(unit: WorkUnit<Kind>): this {
    if (this.units.has(unit.id)) throw new WorkGraphError(`work unit "${unit.id}" is added twice`);
    this.units.set(unit.id, unit);
    return this;
  }

  get size(): number {
    return this.units.size;
  }

  async run(options: WorkGraphRunOptions<Kind> = {}): Promise<void> {
    const units = [...this.units.values()];
    for (const unit of units) {
      for (const dependency of unit.after) {
        if (!this.units.has(dependency)) throw new WorkGraphError(`work unit "${unit.id}" waits for "${dependency}", which is not in the graph`);
      }
    }
    const waiting = new Map(units.map((unit) => [unit.id, new Set(unit.after)]));
    const dependents = new Map<string, string[]>();
    for (const unit of units) for (const dependency of unit.after) dependents.set(dependency, [...(dependents.get(dependency) ?? []), unit.id]);
    const ready: WorkUnit<Kind>[] = units.filter((unit) => unit.after.length === 0);
    const running = new Map<Kind, number>();
    let inFlight = 0;
    let finished = 0;
    let failure: { error: unknown } | null = null;

    await new Promise<void>((resolve) => {
      const settleIfDone = () => {
        if (inFlight > 0) return;
        if (failure || options.signal?.aborted || finished === units.length || ready.length === 0) resolve();
      };
      const pump = () => {
        if (!failure && !options.signal?.aborted) {
          for (let i = 0; i < ready.length; ) {
            const unit = ready[i]!;
            const limit = options.limits?.[unit.kind] ?? Infinity;
            if ((running.get(unit.kind) ?? 0) >= limit) {
              i++;
              continue;
            }
            ready.splice(i, 1);
            start(unit);
          }
        }
        settleIfDone();
      };
      const start = (unit: WorkUnit<Kind>) => {
        running.set(unit.kind, (running.get(unit.kind) ?? 0) + 1);
        inFlight++;
        options.onChange?.({ unit, phase: "started", inFlight });
        Promise.resolve()
          .then(() => unit.run())
          .then(
            () => {
              finished++;
              for (const id of dependents.get(unit.id) ?? []) {
                const left = waiting.get(id)!;
                left.delete(unit.id);
                if (left.size === 0) ready.push(this.units.get(id)!);
              }
            },
            (error: unknown) => {
              failure ??= { error };
            },
          )
          .finally(() => {
            running.set(unit.kind, running.get(unit.kind)! - 1);
            inFlight--;
            options.onChange?.({ unit, phase: "finished", inFlight });
            pump();
          });
      };
      pump();
    });
    if (failure) throw (failure as { error: unknown }).error;
    if (!options.signal?.aborted && finished < units.length) {
      throw new WorkGraphError(`work units wait for each other in a cycle: ${units.filter((unit) => waiting.get(unit.id)!.size > 0).map((unit) => unit.id).join(", ")}`);
    }
  }
}
