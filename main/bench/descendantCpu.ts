import { CPU_TICK_MS, processTree, readStatFields } from "../sandbox/processMemory.js";

/** A descendant's CPU ticks when first and last seen in a window. */
interface Seen {
  first: number;
  last: number;
}

/** User + system ticks and start time (ticks after boot) of a process, from /proc/<pid>/stat; null when gone or off Linux. */
function readStat(pid: number): { ticks: number; startTime: string } | null {
  const fields = readStatFields(pid);
  return fields === null ? null : { ticks: Number(fields[11]) + Number(fields[12]), startTime: fields[19] ?? "" };
}

/**
 * The CPU the processes below this one (the sandbox processes and their confinement wrappers)
 * use over a window, whatever the machine's load: each descendant's /proc ticks are read when the
 * window opens, every `intervalMs` and when it closes, and what each used inside the window is
 * summed (a process that started inside counts from 0; one that ended inside counts up to its
 * last reading, at most `intervalMs` short). The readings' own CPU (in this process) is kept apart.
 * Linux only: `stop()` gives null elsewhere.
 */
export class DescendantCpu {
  private readonly seen = new Map<string, Seen>();
  private readonly timer: NodeJS.Timeout;
  private readonly existing = new Set<string>();
  private ownMicros = 0;
  private readable = process.platform === "linux";

  private constructor(intervalMs: number) {
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), intervalMs);
    this.timer.unref();
  }

  /** Opens the window now, reading every `intervalMs` (defaults to 100). */
  static start(intervalMs = 100): DescendantCpu {
    return new DescendantCpu(intervalMs);
  }

  /** Closes the window: the descendants' CPU inside it and the readings' own CPU, in ms (null off Linux). */
  stop(): { childrenMs: number; samplingMs: number } | null {
    clearInterval(this.timer);
    this.sample(false);
    if (!this.readable) return null;
    let ticks = 0;
    for (const { first, last } of this.seen.values()) ticks += last - first;
    return { childrenMs: ticks * CPU_TICK_MS, samplingMs: this.ownMicros / 1000 };
  }

  private sample(opening: boolean): void {
    if (!this.readable) return;
    const before = process.cpuUsage();
    for (const pid of processTree(process.pid).slice(1)) {
      const stat = readStat(pid);
      if (!stat) continue;
      const key = `${pid}@${stat.startTime}`;
      const seen = this.seen.get(key);
      if (seen) seen.last = stat.ticks;
      else {
        // Running when the window opened: from its ticks then; started inside: from 0.
        if (opening) this.existing.add(key);
        this.seen.set(key, { first: this.existing.has(key) ? stat.ticks : 0, last: stat.ticks });
      }
    }
    const used = process.cpuUsage(before);
    this.ownMicros += used.user + used.system;
  }
}
