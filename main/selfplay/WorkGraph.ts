/** One unit of work of an iteration: what it needs done before it starts, and what it does. */
export interface WorkUnit<Kind extends string = string> {
  /** Unique within the graph, e.g. "design:3:0". */
  id: string;
  kind: Kind;
  /** Units that must have finished first. */
  after: readonly string[];
  /**
   * Units of one group share what their kind's limit lets in: of the ready units, one from the
   * group with the fewest in flight starts first (e.g. the plays of one game), and a group takes no
   * more than its share of the limit: the limit over the groups of that kind with units ready, or
   * with units in flight and more to come (units waiting for theirs), rounded up. Defaults to a
   * group of its own.
   */
  group?: string;
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
 * soon as its dependencies are done, within the per-kind limits, first ready first started, except
 * that a unit of a group with fewer units in flight goes before one of a busier group, and a group
 * already holding its share of its kind's limit waits while other groups are ready, or in flight
 * with more to come (the plays of one game, which its sandbox processes can hold only so many of,
 * never take the whole limit from the games whose canaries are about to let theirs go; a group
 * with only its last units in flight takes no share); so the loop says what depends on
 * what and this decides when. The first failure stops issuing and is thrown once the units in
 * flight have settled.
 */
export class WorkGraph<Kind extends string = string> {
  private readonly units = new Map<string, WorkUnit<Kind>>();
  /** While `run` runs: takes a unit added meanwhile into the run. */
  private adding: ((unit: WorkUnit<Kind>) => void) | null = null;

  /**
   * Adds a unit. While the graph runs, a running unit may add more (e.g. once a count is known);
   * they start as soon as their dependencies are done, which must already be in the graph.
   */
  add(unit: WorkUnit<Kind>): this {
    if (this.units.has(unit.id)) throw new WorkGraphError(`work unit "${unit.id}" is added twice`);
    if (this.adding) {
      const missing = unit.after.find((dependency) => !this.units.has(dependency));
      if (missing !== undefined) throw new WorkGraphError(`work unit "${unit.id}" waits for "${missing}", which is not in the graph`);
    }
    this.units.set(unit.id, unit);
    this.adding?.(unit);
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
    const waiting = new Map<string, Set<string>>();
    const dependents = new Map<string, string[]>();
    const done = new Set<string>();
    const ready: WorkUnit<Kind>[] = [];
    /** Each group's kind (the kind of its units). */
    const groupKind = new Map<string, Kind>();
    /** Units of each group waiting for their dependencies. */
    const groupWaiting = new Map<string, number>();
    const register = (unit: WorkUnit<Kind>) => {
      const left = new Set(unit.after.filter((dependency) => !done.has(dependency)));
      waiting.set(unit.id, left);
      for (const dependency of left) {
        const list = dependents.get(dependency);
        if (list) list.push(unit.id);
        else dependents.set(dependency, [unit.id]);
      }
      if (unit.group !== undefined) groupKind.set(unit.group, unit.kind);
      if (left.size === 0) ready.push(unit);
      else if (unit.group !== undefined) groupWaiting.set(unit.group, (groupWaiting.get(unit.group) ?? 0) + 1);
    };
    for (const unit of units) register(unit);
    this.adding = (unit) => {
      units.push(unit);
      register(unit);
    };
    const running = new Map<Kind, number>();
    const groupRunning = new Map<string, number>();
    const inGroup = (unit: WorkUnit<Kind>) => (unit.group === undefined ? 0 : (groupRunning.get(unit.group) ?? 0));
    /** Each limited kind's share per group now: its limit over its groups with units ready, or in flight with units waiting. */
    const shares = () => {
      const groups = new Map<Kind, Set<string>>();
      const note = (kind: Kind, group: string) => {
        const set = groups.get(kind);
        if (set) set.add(group);
        else groups.set(kind, new Set([group]));
      };
      for (const unit of ready) if (unit.group !== undefined) note(unit.kind, unit.group);
      for (const [group, count] of groupRunning) if (count > 0 && (groupWaiting.get(group) ?? 0) > 0) note(groupKind.get(group)!, group);
      const share = new Map<Kind, number>();
      for (const [kind, set] of groups) share.set(kind, Math.ceil((options.limits?.[kind] ?? Infinity) / set.size));
      return share;
    };
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
          for (;;) {
            // The first ready unit whose kind has room, of the group with the fewest units in flight, within its group's share.
            let best = -1;
            const share = shares();
            for (let i = 0; i < ready.length; i++) {
              const unit = ready[i]!;
              if ((running.get(unit.kind) ?? 0) >= (options.limits?.[unit.kind] ?? Infinity)) continue;
              if (unit.group !== undefined && inGroup(unit) >= (share.get(unit.kind) ?? Infinity)) continue;
              if (best < 0 || inGroup(unit) < inGroup(ready[best]!)) best = i;
              if (inGroup(unit) === 0) break;
            }
            if (best < 0) break;
            start(ready.splice(best, 1)[0]!);
          }
        }
        settleIfDone();
      };
      const start = (unit: WorkUnit<Kind>) => {
        running.set(unit.kind, (running.get(unit.kind) ?? 0) + 1);
        if (unit.group !== undefined) groupRunning.set(unit.group, inGroup(unit) + 1);
        inFlight++;
        options.onChange?.({ unit, phase: "started", inFlight });
        Promise.resolve()
          .then(() => unit.run())
          .then(
            () => {
              finished++;
              done.add(unit.id);
              for (const id of dependents.get(unit.id) ?? []) {
                const left = waiting.get(id)!;
                left.delete(unit.id);
                if (left.size > 0) continue;
                const now = this.units.get(id)!;
                ready.push(now);
                if (now.group !== undefined) groupWaiting.set(now.group, groupWaiting.get(now.group)! - 1);
              }
            },
            (error: unknown) => {
              failure ??= { error };
            },
          )
          .finally(() => {
            running.set(unit.kind, running.get(unit.kind)! - 1);
            if (unit.group !== undefined) groupRunning.set(unit.group, inGroup(unit) - 1);
            inFlight--;
            options.onChange?.({ unit, phase: "finished", inFlight });
            pump();
          });
      };
      pump();
    }).finally(() => {
      this.adding = null;
    });
    if (failure) throw (failure as { error: unknown }).error;
    if (!options.signal?.aborted && finished < units.length) {
      throw new WorkGraphError(`work units wait for each other in a cycle: ${units.filter((unit) => waiting.get(unit.id)!.size > 0).map((unit) => unit.id).join(", ")}`);
    }
  }
}
