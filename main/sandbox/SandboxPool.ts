import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, freemem, tmpdir } from "node:os";
import { join } from "node:path";
import { resourcePath } from "../paths.js";
import { TEXT_CAPS } from "./capText.js";
import { SandboxUnconfinedError, unconfinedAllowedByEnvironment, type ConfinementMode } from "./confinement/chooseConfinement.js";
import type { EnvSession } from "./EnvSession.js";
import { checkedToolSchemas } from "./checkedToolSchemas.js";
import { EnvironmentContractError, SandboxCrashedError, SandboxProtocolError, SandboxSiblingError, SandboxTimeoutError } from "./errors.js";
import type { OpenResult, RepairResult, StartPhase } from "./protocol.js";
import { callTimeout, checkedOpenResult, harnessErrorToException, parseHarnessReply, SandboxEnvSession, type SessionLimits } from "./SandboxEnvSession.js";
import type { ChildReply } from "./protocol.js";
import { buildSandboxLaunch, pyodideDirectory, sandboxHostScript, type SandboxLaunch } from "./sandboxLaunch.js";
import { SandboxProcess } from "./SandboxProcess.js";
import { SnapshotCache } from "./snapshotCache.js";
import { readTreeUsage } from "./processMemory.js";
import { median } from "../util/median.js";

export interface SandboxPoolOptions {
  /** The former fixed pool size: the default of both `concurrency` and `prewarm`. Defaults to 2. */
  size?: number;
  /** Plays expected to run at once: with `prewarm`, what the pool sizes itself for. Defaults to `size`. */
  concurrency?: number;
  /** Never-used processes kept started and ready, so that a new environment does not wait; refilled only while no play holds a process (a start while plays run takes their CPU). Defaults to `size`. */
  prewarm?: number;
  /**
   * Processes started when the pool is created, at most `cores` at once (the expected working set:
   * a run's games each need a process of their own), so that its rollouts do not pay for starts
   * while plays run; unlike `prewarm`, nothing is started later to keep this many. Lowered to the
   * capacity. Defaults to `prewarm`.
   */
  initialProcesses?: number;
  /** The most sandbox processes alive at once (busy, idle for one environment, or never used); more `open()` calls wait. Defaults to concurrency + prewarm + the games with plays to come (`planPlays`), lowered to what the memory holds with every process at `memoryLimitMb` (see `memoryCapacity`). */
  capacity?: number;
  /** The cores the pool may use: at most one process starts per core at once (a start is CPU-bound: more at once only makes every one of them later). Defaults to os.availableParallelism(). */
  cores?: number;
  /**
   * The most plays of one game a process holds open at once: a play whose game's processes are all
   * busy joins one that can take it (its last answer said the play in its interpreter can be
   * parked) before a process is started or waited for; the child switches between them by the
   * exact memory restore it uses between plays. Each parked play costs a copy of the interpreter's
   * memory (at most the pristine memory + 64 MiB), which the memory-bound capacity counts per
   * process. 1 turns sharing off (one play per process). Defaults to 8 (the run config's default: see `sandbox.playsPerProcess`).
   */
  playsPerProcess?: number;
  /**
   * Put a process whose game no longer needs it back to its pristine state (the state it had when
   * it became ready, before any environment code) and hand it out as a never-used process, instead
   * of ending it or leaving it idle: when its game has no plays to come (the announced plays,
   * `planPlays`, are done), and when a never-used process is wanted (validation's replay
   * included) while a game holds an idle process beyond what its plays to come need. The child
   * refuses (and is ended, then replaced) unless nothing outside the interpreter's memory changed
   * and the memory never grew; see the README's threat model. A recycled process counts as
   * never-used (`freshProcess`). Defaults to true.
   */
  recycleProcesses?: boolean;
  /** Processes with no session open for this long are ended (the warm set too) until the next open; null keeps them for as long as the pool lives (a run, whose games come back in the next rollout). Defaults to null. */
  idleReleaseMs?: number | null;
  /** Deadline of one `step()`, in ms. Defaults to 30000. */
  stepTimeoutMs?: number;
  /** Deadline of the other calls (open, reset, hint, solution, close), in ms. Defaults to 30000. */
  callTimeoutMs?: number;
  /** A sandbox whose resident memory goes over this many MiB is killed, busy or idle. Defaults to 1024. */
  memoryLimitMb?: number;
  /** How often the memory of a busy sandbox is checked, in ms (an idle one ten times less often). Defaults to 25. */
  memoryPollMs?: number;
  /** CPU a sandbox may use between requests before it is killed, in ms. Defaults to 5000. */
  idleCpuLimitMs?: number;
  /** Longer observations are cut here and end with a "[observation truncated: ...]" note; also the limit for info as JSON. Defaults to 65536. */
  maxObservationChars?: number;
  /** Printed output kept per session; the rest is dropped with a note. Defaults to 65536. */
  maxPrintChars?: number;
  /** Deadline for a sandbox process to start, in ms. Defaults to 120000. */
  startTimeoutMs?: number;
  /** Where the interpreter snapshot is cached between runs; null keeps it in a private temporary folder. Defaults to SnapshotCache.defaultDirectory(). */
  snapshotCacheDir?: string | null;
  /** The OS confinement: "auto" picks bubblewrap on Linux, sandbox-exec on macOS. Defaults to "auto". */
  confinement?: ConfinementMode;
  /** Run generated code even where no OS confinement is available (reduced isolation). Defaults to the SPADE_SANDBOX_ALLOW_UNCONFINED environment variable, else false. */
  allowUnconfined?: boolean;
}

export interface OpenOptions {
  /** Overrides the pool's step deadline for this session. Defaults to the pool's stepTimeoutMs. */
  stepTimeoutMs?: number;
  /** Overrides the pool's deadline for the other calls of this session. Defaults to the pool's callTimeoutMs. */
  callTimeoutMs?: number;
  /** An overall deadline (epoch ms): every call of the session, `open` included, ends by then at the latest. Defaults to none. */
  deadlineAt?: number;
  /** Open in a never-used process, not in one this code already ran in (validation's replay). Defaults to false. */
  freshProcess?: boolean;
  /** This open is one of the plays announced with `planPlays` (the count of plays to come goes down by one). Defaults to false. */
  planned?: boolean;
  /**
   * The run's turn limit: the class is built as the reference's training plays build it (without
   * arguments, else with `max_turns=`) and its own `max_turns` capped at this. Opens of one code in
   * one pool must agree on it (another value is refused with a RangeError: its processes keep the
   * game as the first open built it). Defaults to null (the class built without arguments, nothing capped).
   */
  maxTurns?: number | null;
}

export interface SandboxPoolStats {
  processesStarted: number;
  /** Processes that died or were killed (timeouts, memory, protocol violations). */
  processesReplaced: number;
  /** Sessions that got a never-used process (the first play of an environment). */
  freshInterpreters: number;
  /** Sessions that got their environment's process back, restored to its pristine state. */
  reusedInterpreters: number;
  /** Of those, sessions that started from the interpreter as the open of their code left it (the code was not run again). */
  opensFromBase: number;
  /** Start time of the first process, in ms. */
  firstStartMs: number;
  /** Median resident memory of a started sandbox process tree, in MiB (null where not measurable). */
  memoryPerProcessMb: number | null;
  /** Median CPU a process tree had used when it was ready (Node, confinement, Pyodide boot), in ms; null where not measurable. */
  startCpuMsP50: number | null;
  /** CPU of every process start so far summed (each process tree from spawn to ready), in ms; starts not measurable count 0. */
  startCpuMsTotal: number;
  /** Median wait for a never-used process in open(), in ms. */
  freshProcessP50Ms: number | null;
  /** Median time to put an environment's interpreter back into the state its plays start from, in ms (done right after a close, while the engine stores the episode). */
  playResetP50Ms: number | null;
  /** The process limit in force. */
  capacity: number;
  /** Processes alive now (busy, idle or never used). */
  live: number;
  /** Processes being started now. */
  starting: number;
  /** Processes ended because no session was open for `idleReleaseMs`. */
  processesReleasedIdle: number;
  /** Idle processes of one game ended to make room for another game's open. */
  processesEvicted: number;
  /** Processes put back to their pristine state and handed out again as never-used (see `recycleProcesses`). */
  processesRecycled: number;
  /** Median wall time of a recycle in the child, in ms; null when none. */
  recycleP50Ms: number | null;
  /** Median CPU a recycle took in the child, in ms; null when none. */
  recycleCpuMsP50: number | null;
  /** Plays that joined a process holding another play of their game (see `playsPerProcess`). */
  sharedOpens: number;
  /** The most plays one process held open at once. */
  sharedPlaysPeak: number;
  /** Median time a child took to switch plays (park the one in its interpreter, put another back), in ms; null when none switched. */
  playSwitchP50Ms: number | null;
  /** Opens sent to a shared process that lost it to a sibling before they ran, opened again elsewhere. */
  opensRerouted: number;
}

/** Medians over the pool's process starts (see `SandboxPool.startProfile`). */
export interface SandboxStartProfile {
  starts: number;
  /** CPU of a start, the whole process tree from spawn to ready, in ms; null where not measurable. */
  cpuMsP50: number | null;
  /** Resident memory of a process when ready, in MiB; null where not measurable. */
  rssMbP50: number | null;
  /** Proportional set size of a process when ready (its share of pages shared with other processes, such as Node's code), in MiB; null where not measurable. */
  pssMbP50: number | null;
  /** Per phase in start order: the child's CPU ms (all its threads) and wall ms. */
  phases: Array<{ name: string; cpuMs: number; wallMs: number }>;
}

/** What an open may get: any process for a play, a never-used one only, or one no play holds (a repair). */
type AcquireMode = "play" | "fresh" | "exclusive";

interface Waiter {
  code: string;
  /** Only a never-used process will do (a replay that must not share a process with earlier plays). */
  freshOnly: boolean;
  /** A play that may join a process holding other plays of its game. */
  shares: boolean;
  resolve: (process: SandboxProcess) => void;
  reject: (error: Error) => void;
}

/** What a parked play's memory copy is taken to cost before the first process reports its pristine memory, in MiB (about 30 MiB + the 64 MiB kept growth). */
const PARKED_COPY_MB_ESTIMATE = 96;
/** What a recyclable process's pristine copy is taken to hold resident before the first process reports it, in MiB (its non-zero pages: about 16 of the 30 MiB). */
const PRISTINE_COPY_MB_ESTIMATE = 16;
/** How many games the pool remembers as not shareable (oldest forgotten first). */
const MAX_REMEMBERED_UNSHAREABLE = 4096;
/** Cold-booted processes in a row the pool ends instead of handing out while it has a snapshot (then it hands one out rather than never start). */
const MAX_COLD_STARTS_REFUSED = 4;
const HARNESS_FILES = ["spade_sandbox.py", "spade_env.py", "spade_repair.py", "spade_determinism.py", "spade_bridges.py"];
let warnedUnconfined = false;
const SAMPLES = 256;
/** How many environments' first open answers the pool remembers (oldest forgotten first). */
const MAX_REMEMBERED_OPEN_ANSWERS = 4096;
/** How many games whose announced plays are done the pool remembers (oldest forgotten first). */
const MAX_REMEMBERED_DONE = 4096;

function pushSample(values: number[], value: number): void {
  values.push(value);
  if (values.length > SAMPLES) values.shift();
}

/**
 * Sandbox processes for environment code. A process that ran one environment's code never runs
 * another's: each new environment gets a never-used process from a warm set kept ready in the
 * background (`prewarm`), and later plays of the same environment get that environment's idle
 * process back with its interpreter restored to the pristine state. The number of processes grows
 * with demand up to `capacity`; idle processes of other environments are ended to make room, but
 * not those a game with plays to come keeps (`planPlays`, `evictionCandidate`), so a process stays
 * bound to its game across the rollouts that replay it. Processes for planned plays are started
 * ahead of need in the background, at most one per core at once. Plays of one game may share a
 * process (`playsPerProcess`): a play whose game's processes are all busy joins one that can take
 * it before a process is started or waited for; the child switches between them by the exact
 * memory restore it uses between plays.
 */
export class SandboxPool {
  /** The former pool size (concurrency and prewarm default). */
  readonly size: number;
  /** The isolation layers in force, for people and logs. */
  readonly isolation: string;
  /** The layers in force in a few words, e.g. "bubblewrap+seccomp+node-permissions+no-eval+module-gate+python-audit". */
  readonly confinement: string;
  private capacityLimit: number;
  private prewarmTarget: number;
  private readonly fresh: SandboxProcess[] = [];
  private readonly idle: SandboxProcess[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly live = new Set<SandboxProcess>();
  private starting = 0;
  private disposed = false;
  private failuresInARow = 0;
  /** Set when processes failed to start three times in a row. */
  private broken: Error | null = null;
  private launch: SandboxLaunch;
  private readonly counters = { processesStarted: 0, processesReplaced: 0, freshInterpreters: 0, reusedInterpreters: 0, opensFromBase: 0, firstStartMs: 0, processesReleasedIdle: 0, processesEvicted: 0, sharedOpens: 0, sharedPlaysPeak: 0, opensRerouted: 0, processesRecycled: 0, startCpuMsTotal: 0 };
  /** Processes being put back to their pristine state now (still live, not yet never-used). */
  private recycling = 0;
  /** Games (code) whose announced plays are all done: their processes are recycled once free. */
  private readonly done = new Set<string>();
  /** Wall and CPU ms of the children's recycles. */
  private readonly recycleWalls: number[] = [];
  private readonly recycleCpu: number[] = [];
  /** Switch times the children reported (ms). */
  private readonly switches: number[] = [];
  /** Games (hashes of their code) one of whose plays could not be parked: their plays never share a process again. */
  private readonly unshareable = new Set<string>();
  /** Bytes one parked play's copy may take (the largest pristine memory + the kept growth), once known. */
  private parkedCopyBytes: number | null = null;
  /** What a recyclable process's pristine copy holds resident (the largest reported), once known. */
  private pristineCopyBytes: number | null = null;
  /** Plays still to come per game (code), as the loop announced them. */
  private readonly planned = new Map<string, number>();
  /** Processes started at once at most (one per core). */
  private readonly maxStarting: number;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Set once the pool released its processes for idleness: no warm set until the next open. */
  private dormant = false;
  private readonly memorySamples: number[] = [];
  private readonly freshWaits: number[] = [];
  private readonly startCpu: number[] = [];
  /** How long sessions held their process, and how long processes took to start, in ms. */
  private readonly holds: number[] = [];
  private readonly startWalls: number[] = [];
  private readonly resets: number[] = [];
  /** CPU ms, resident MiB and phases of each process start (the last SAMPLES), for `startProfile()`. */
  private readonly starts: Array<{ cpuMs: number | null; rssMb: number | null; pssMb: number | null; phases: StartPhase[] }> = [];
  /** The first successful open's answer per code (hashes), that every later open must repeat. */
  private readonly firstOpenAnswers = new Map<string, string>();
  /** The turn limit each code (hash) was first opened with, that every later open must bring: a process keeps its game as that open built it. */
  private readonly openedMaxTurns = new Map<string, number | null>();
  private readonly memoryBoundCapacity: boolean;
  private readonly baseCapacity: number;
  private readonly playConcurrency: number;
  /** Processes that booted cold while the pool had a snapshot, ended instead of handed out (bounded by MAX_COLD_STARTS_REFUSED). */
  private coldStartsRefused = 0;
  /** The header of the snapshot file as the engine verified it (children check the file still starts with it). */
  private snapshotHeader: Buffer | null = null;

  private constructor(
    private readonly options: Required<Omit<SandboxPoolOptions, "snapshotCacheDir" | "capacity" | "allowUnconfined" | "concurrency" | "prewarm" | "initialProcesses" | "size" | "cores">>,
    sizing: { size: number; capacity: number | null; prewarm: number; concurrency: number; cores: number; initialProcesses: number },
    private readonly files: Record<string, string>,
    private readonly cache: SnapshotCache | null,
    private readonly temporaryDir: string | null,
    private snapshotPath: string | null,
  ) {
    this.size = sizing.size;
    this.prewarmTarget = sizing.prewarm;
    this.memoryBoundCapacity = sizing.capacity === null;
    this.baseCapacity = sizing.concurrency + sizing.prewarm;
    this.playConcurrency = sizing.concurrency;
    this.maxStarting = Math.max(1, sizing.cores);
    this.capacityLimit = sizing.capacity ?? SandboxPool.memoryCapacity(this.baseCapacity, { limitMb: options.memoryLimitMb, availableBytes: freemem(), heldBytes: 0, ...this.parkedCopies() });
    this.launch = buildSandboxLaunch({ confinement: options.confinement, snapshotPath });
    this.isolation = this.launch.isolation;
    this.confinement = this.launch.confinementSummary;
  }

  /**
   * `wanted` processes, lowered to what the memory holds when every process grows to its limit
   * (`limitMb`, the size at which a process is killed; a fresh process is far smaller, but an idle
   * one keeps its peak) and, when plays share processes, holds `playsPerProcess` plays, each with
   * a buffer to park in of up to `parkedCopyMb`, and, when processes are recycled, the copy of its
   * pristine memory (`pristineCopyMb`, what that copy holds resident): the memory available on the
   * machine plus what the pool's own processes hold now, divided by that. At least 2.
   */
  static memoryCapacity(wanted: number, memory: { limitMb: number; availableBytes: number; heldBytes: number; playsPerProcess?: number; parkedCopyMb?: number; pristineCopyMb?: number }): number {
    const plays = memory.playsPerProcess ?? 1;
    const perProcessMb = Math.max(1, memory.limitMb) + (plays >= 2 ? plays * (memory.parkedCopyMb ?? 0) : 0) + (memory.pristineCopyMb ?? 0);
    const fits = Math.floor((memory.availableBytes + memory.heldBytes) / (perProcessMb * 1024 * 1024));
    return Math.max(2, Math.min(wanted, fits));
  }

  /** The copies of the interpreter a process may hold beside its limit (parked plays, the pristine copy of a recyclable one), for `memoryCapacity`. */
  private parkedCopies(): { playsPerProcess: number; parkedCopyMb: number; pristineCopyMb: number } {
    const parkedCopyMb = this.parkedCopyBytes === null ? PARKED_COPY_MB_ESTIMATE : this.parkedCopyBytes / 1024 / 1024;
    const pristineCopyMb = !this.options.recycleProcesses ? 0 : this.pristineCopyBytes === null ? PRISTINE_COPY_MB_ESTIMATE : this.pristineCopyBytes / 1024 / 1024;
    return { playsPerProcess: this.options.playsPerProcess, parkedCopyMb, pristineCopyMb };
  }

  static async create(options: SandboxPoolOptions = {}): Promise<SandboxPool> {
    const size = options.size ?? 2;
    const sizing = {
      size,
      concurrency: options.concurrency ?? size,
      prewarm: options.prewarm ?? size,
      capacity: options.capacity ?? null,
      cores: options.cores ?? availableParallelism(),
      initialProcesses: options.initialProcesses ?? options.prewarm ?? size,
    };
    const resolved = {
      stepTimeoutMs: options.stepTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? 30_000,
      memoryLimitMb: options.memoryLimitMb ?? 1024,
      memoryPollMs: options.memoryPollMs ?? 25,
      idleCpuLimitMs: options.idleCpuLimitMs ?? 5000,
      maxObservationChars: options.maxObservationChars ?? 65_536,
      maxPrintChars: options.maxPrintChars ?? 65_536,
      startTimeoutMs: options.startTimeoutMs ?? 120_000,
      confinement: options.confinement ?? "auto",
      idleReleaseMs: options.idleReleaseMs ?? null,
      playsPerProcess: options.playsPerProcess ?? 8,
      recycleProcesses: options.recycleProcesses ?? true,
    };
    if (typeof resolved.recycleProcesses !== "boolean") throw new TypeError(`SandboxPool option recycleProcesses must be true or false, got ${String(resolved.recycleProcesses)}`);
    for (const [name, value] of Object.entries({ ...resolved, size, concurrency: sizing.concurrency, cores: sizing.cores, ...(sizing.capacity === null ? {} : { capacity: sizing.capacity }) })) {
      if (typeof value === "number" && (!Number.isInteger(value) || value < 1)) {
        throw new RangeError(`SandboxPool option ${name} must be a whole number of at least 1, got ${value}`);
      }
    }
    if (!Number.isInteger(sizing.prewarm) || sizing.prewarm < 0) throw new RangeError(`SandboxPool option prewarm must be a whole number of at least 0, got ${sizing.prewarm}`);
    if (!Number.isInteger(sizing.initialProcesses) || sizing.initialProcesses < 0) throw new RangeError(`SandboxPool option initialProcesses must be a whole number of at least 0, got ${sizing.initialProcesses}`);
    const probe = buildSandboxLaunch({ confinement: resolved.confinement });
    if (!probe.confinement.confined && !(options.allowUnconfined ?? unconfinedAllowedByEnvironment())) {
      throw new SandboxUnconfinedError("reason" in probe.confinement ? String(probe.confinement.reason) : probe.confinement.name);
    }
    if (!probe.confinement.confined && !warnedUnconfined) {
      warnedUnconfined = true;
      process.stderr.write(`spade: warning: the sandbox runs WITHOUT OS confinement (${"reason" in probe.confinement ? String(probe.confinement.reason) : "none"}); generated code is isolated by in-process layers only\n`);
    }
    const files = Object.fromEntries(HARNESS_FILES.map((name) => [name, readFileSync(resourcePath("python", name), "utf8")]));
    const cacheDir = options.snapshotCacheDir === undefined ? SnapshotCache.defaultDirectory() : options.snapshotCacheDir;
    const pyodideVersion = String(JSON.parse(readFileSync(join(pyodideDirectory(), "package.json"), "utf8")).version);
    const key = SnapshotCache.keyFor([pyodideVersion, process.version, readFileSync(sandboxHostScript(), "utf8"), ...HARNESS_FILES.map((name) => files[name] ?? "")]);
    const temporaryDir = cacheDir === null ? mkdtempSync(join(tmpdir(), "spade-sandbox-")) : null;
    const cache = new SnapshotCache(cacheDir ?? (temporaryDir as string), key);
    const header = cache.verifiedHeader();
    const pool = new SandboxPool(resolved, sizing, files, cache, temporaryDir, header ? cache.path : null);
    pool.snapshotHeader = header;
    try {
      await pool.startProcess();
      // The rest of the initial set, one start per core at a time (the first wrote the snapshot they load).
      let toStart = Math.max(0, Math.min(Math.max(sizing.prewarm, sizing.initialProcesses), pool.capacityLimit) - pool.counters.processesStarted - pool.starting);
      const next = async (): Promise<void> => {
        while (toStart > 0 && !pool.disposed) {
          toStart--;
          await pool.startProcess();
        }
      };
      await Promise.all(Array.from({ length: pool.maxStarting }, next));
    } catch (error) {
      await pool.dispose();
      throw error;
    }
    return pool;
  }

  /** The most plays of one game a process holds at once (`playsPerProcess`). */
  get playsPerProcess(): number {
    return this.options.playsPerProcess;
  }

  /** The process limit in force. */
  get capacity(): number {
    return this.capacityLimit;
  }

  stats(): SandboxPoolStats {
    const memory = median(this.memorySamples);
    return {
      ...this.counters,
      memoryPerProcessMb: memory === null ? null : Math.round(memory),
      startCpuMsP50: median(this.startCpu),
      freshProcessP50Ms: median(this.freshWaits),
      playResetP50Ms: median(this.resets),
      playSwitchP50Ms: median(this.switches),
      recycleP50Ms: median(this.recycleWalls),
      recycleCpuMsP50: median(this.recycleCpu),
      capacity: this.capacityLimit,
      live: this.live.size,
      starting: this.starting,
    };
  }

  /**
   * Where the processes' starts went: medians of the CPU ms (the whole process tree, spawn to
   * ready), the resident MiB when ready, and per phase the child's CPU and wall ms.
   */
  startProfile(): SandboxStartProfile {
    const values = (pick: (start: (typeof this.starts)[number]) => number | null) => this.starts.map(pick).filter((value): value is number => value !== null);
    const names = [...new Set(this.starts.flatMap((start) => start.phases.map(([name]) => name)))];
    const phase = (name: string, index: 1 | 2) => median(this.starts.flatMap((start) => start.phases.filter((entry) => entry[0] === name).map((entry) => entry[index]))) ?? 0;
    return {
      starts: this.starts.length,
      cpuMsP50: median(values((start) => start.cpuMs)),
      rssMbP50: median(values((start) => start.rssMb)),
      pssMbP50: median(values((start) => start.pssMb)),
      phases: names.map((name) => ({ name, cpuMs: phase(name, 1), wallMs: phase(name, 2) })),
    };
  }

  /**
   * Announces the plays of a game (its code) still to come (in this rollout and the batch's replay
   * rollouts); 0 when none are. The idle processes a game with plays to come keeps are not ended to
   * make room for another game, and a first process for a game that has none is started ahead of need. Each `open(code, { planned: true })`
   * counts one play down.
   */
  planPlays(code: string, count: number): void {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`planPlays(code, count) expects a whole number of at least 0, got ${count}`);
    if (count === 0) {
      this.planned.delete(code);
      this.markDone(code);
      for (const process of this.idle.filter((candidate) => candidate.boundCode === code)) this.recycleInto(process);
    } else {
      this.planned.set(code, count);
      this.done.delete(code);
    }
    this.resize();
    this.topUp();
  }

  /** Plays still to come of a game, as announced with `planPlays` and counted down by its planned opens. */
  playsToCome(code: string): number {
    return this.planned.get(code) ?? 0;
  }

  /**
   * Keeps `count` never-used processes ready from now on (for a burst of new environments), and
   * raises the capacity to hold them if needed; resolves once they are started.
   */
  async prewarm(count: number, options: { capacity?: number } = {}): Promise<void> {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`prewarm(count) expects a whole number of at least 0, got ${count}`);
    this.prewarmTarget = count;
    if (options.capacity !== undefined) {
      if (!Number.isInteger(options.capacity) || options.capacity < 1) throw new RangeError(`prewarm capacity must be a whole number of at least 1, got ${options.capacity}`);
      this.capacityLimit = options.capacity;
    }
    this.topUp();
    // Resolves once the warm set is full, or nothing more is being started (capacity reached, or starts failing).
    while (!this.disposed && this.fresh.length < count && this.starting > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Runs `code` in a sandbox and creates its single `*Env` class; the session holds a process until closed. */
  async open(code: string, options: OpenOptions = {}): Promise<EnvSession> {
    if (typeof code !== "string") throw new TypeError("SandboxPool.open(code) expects the environment's Python source as a string");
    const maxTurns = options.maxTurns ?? null;
    if (maxTurns !== null && !(Number.isSafeInteger(maxTurns) && maxTurns >= 1)) throw new RangeError(`SandboxPool.open: maxTurns must be a whole number of at least 1, got ${maxTurns}`);
    this.checkMaxTurns(code, maxTurns);
    const limits: SessionLimits = {
      stepTimeoutMs: options.stepTimeoutMs ?? this.options.stepTimeoutMs,
      callTimeoutMs: options.callTimeoutMs ?? this.options.callTimeoutMs,
      maxPrintChars: this.options.maxPrintChars,
      maxObservationChars: this.options.maxObservationChars,
      deadlineAt: options.deadlineAt ?? null,
    };
    if (options.planned === true) {
      const toCome = this.planned.get(code) ?? 0;
      if (toCome <= 1) {
        this.planned.delete(code);
        this.markDone(code);
      } else this.planned.set(code, toCome - 1);
    }
    // Validation's replay needs a never-used process and keeps it to itself; other plays may share one.
    const mode: AcquireMode = options.freshProcess === true ? "fresh" : "play";
    for (let attempt = 1; ; attempt++) {
      const process = await this.acquire(code, limits.deadlineAt, mode);
      const reused = process.sessions > 0;
      if (process.playsOpen > 0) this.counters.sharedOpens++;
      process.boundCode = code;
      process.sessions++;
      const play = process.beginPlay(mode === "fresh");
      this.counters.sharedPlaysPeak = Math.max(this.counters.sharedPlaysPeak, process.playsOpen);
      let reply: ChildReply;
      try {
        reply = await process.request({ op: "open", code, maxObservationChars: this.options.maxObservationChars, maxPrintChars: this.options.maxPrintChars, textCaps: TEXT_CAPS, maxTurns, play }, "open", limits.callTimeoutMs, { play, deadlineAt: limits.deadlineAt });
      } catch (error) {
        const lost = error instanceof SandboxSiblingError;
        this.endPlay(process, play, { kept: false, lost });
        // An open that never reached the child (a sibling took the process first) has run nothing: it is opened again elsewhere.
        if (lost && error.neverRan && attempt < 3) {
          this.counters.opensRerouted++;
          continue;
        }
        throw error;
      }
      return this.openedSession(code, process, play, reply, reused, limits);
    }
  }

  /** An open of `code` brings the turn limit its first open brought (the first is remembered); another is refused before anything runs. */
  private checkMaxTurns(code: string, maxTurns: number | null): void {
    const key = codeHash(code);
    const first = this.openedMaxTurns.get(key);
    if (first === undefined) {
      if (this.openedMaxTurns.size >= MAX_REMEMBERED_OPEN_ANSWERS) this.openedMaxTurns.delete(this.openedMaxTurns.keys().next().value as string);
      this.openedMaxTurns.set(key, maxTurns);
    } else if (first !== maxTurns) {
      throw new RangeError(`SandboxPool.open: this environment was opened in this pool with maxTurns ${first ?? "none"}, not ${maxTurns ?? "none"}; opens of one code in one pool must agree on it`);
    }
  }

  /** The session of an answered open: its answer checked, the counters kept. */
  private async openedSession(code: string, process: SandboxProcess, play: number, reply: ChildReply, reused: boolean, limits: SessionLimits): Promise<EnvSession> {
    if (reused) this.counters.reusedInterpreters++;
    else this.counters.freshInterpreters++;
    if (typeof reply.resetMs === "number") pushSample(this.resets, reply.resetMs);
    if (reply.fromBase === true) this.counters.opensFromBase++;
    let response;
    let opened;
    try {
      response = parseHarnessReply<unknown>(reply, "open");
      opened = response.ok ? checkedOpenResult(response.result) : { className: "", kind: "text" as const, tools: null, hasHint: false };
    } catch (error) {
      process.kill({ play, reason: (error as Error).message });
      this.endPlay(process, play, { kept: false, lost: false });
      throw error;
    }
    const session = new SandboxEnvSession(process, play, opened, !reused, limits, (sandbox, ended, outcome) => this.endPlay(sandbox, ended, outcome));
    session.addPrinted(reply.output ?? "");
    session.addPrinted(response.printed);
    if (!response.ok) {
      await session.close();
      throw harnessErrorToException(response.error);
    }
    const inconsistent = this.checkOpenAnswer(code, opened);
    if (inconsistent) {
      await session.close();
      throw inconsistent;
    }
    return session;
  }

  /**
   * Every open of the same code must answer as its first successful open did (class, kind, tool
   * schemas, hint): an environment whose `get_tools()` or class changes between opens is that
   * environment's error. Well-formed tool schemas are checked at every open. Returns the error, or
   * null when the answer is consistent (the first answer is remembered).
   */
  private checkOpenAnswer(code: string, opened: OpenResult): EnvironmentContractError | null {
    try {
      checkedToolSchemas(opened.tools, opened.className);
    } catch (error) {
      return error as EnvironmentContractError;
    }
    const key = codeHash(code);
    const answer = createHash("sha256").update(JSON.stringify([opened.className, opened.kind, opened.tools, opened.hasHint])).digest("base64");
    const first = this.firstOpenAnswers.get(key);
    if (first === undefined) {
      if (this.firstOpenAnswers.size >= MAX_REMEMBERED_OPEN_ANSWERS) this.firstOpenAnswers.delete(this.firstOpenAnswers.keys().next().value as string);
      this.firstOpenAnswers.set(key, answer);
      return null;
    }
    if (first === answer) return null;
    const error = new EnvironmentContractError("open", `open answered differently from this environment's first open (class ${opened.className}, kind ${opened.kind}, ${opened.tools === null ? "no tools" : `${opened.tools.length} tool schemas`}); the class, get_tools() and hint() must not change between instances`);
    error.stage = "reopen";
    error.className = opened.className;
    return error;
  }

  /**
   * The f-string brace repair of `code` in a sandbox process (parsed only, never run), within
   * `timeoutMs` (the wait for a process included). It takes `code`'s own idle process or a
   * never-used one; a never-used one is then bound to the repaired code and kept idle, so the
   * validation of that code plays in it (after a restore of the pristine interpreter) and no
   * process is spent on the repair. Throws the sandbox's errors (timeout, crash, protocol).
   */
  async repairBraces(code: string, timeoutMs: number): Promise<RepairResult> {
    if (typeof code !== "string") throw new TypeError("SandboxPool.repairBraces(code) expects the environment's Python source as a string");
    const deadlineAt = Date.now() + timeoutMs;
    const process = await this.acquire(code, deadlineAt, "exclusive");
    const neverUsed = process.boundCode === null;
    let result: RepairResult;
    let kept: boolean;
    try {
      const reply = await process.request({ op: "repair", code }, "repair", callTimeout(timeoutMs, deadlineAt));
      kept = reply.kept === true;
      const response = parseHarnessReply<unknown>(reply, "repair");
      if (!response.ok) throw harnessErrorToException(response.error);
      result = checkedRepairResult(response.result, code);
    } catch (error) {
      process.kill();
      this.release(process, false);
      throw error;
    }
    if (neverUsed) process.boundCode = result.code ?? code;
    this.release(process, kept);
    return result;
  }

  /** Kills every sandbox process; pending `open()` calls fail. */
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    for (const waiter of this.waiters.splice(0)) waiter.reject(new SandboxCrashedError("open", "the sandbox pool was disposed"));
    const exits = [...this.live].map((process) => new Promise<void>((resolve) => process.onExit(resolve)));
    for (const process of this.live) process.kill();
    this.idle.length = 0;
    this.fresh.length = 0;
    await Promise.all(exits);
    if (this.temporaryDir) rmSync(this.temporaryDir, { recursive: true, force: true });
  }

  /**
   * A process for `code`: its own idle one, else (a play) one of its processes that can take
   * another play (a room is reserved in it) unless the warm set holds more never-used processes
   * than its target, else a never-used one; waits when none exists and no room is left. `fresh`: only a never-used process; `exclusive`: no sharing (a repair).
   */
  private acquire(code: string, deadlineAt: number | null, mode: AcquireMode): Promise<SandboxProcess> {
    if (this.disposed) return Promise.reject(new SandboxCrashedError("open", "the sandbox pool was disposed"));
    if (this.broken && this.live.size + this.starting === 0) return Promise.reject(this.broken);
    this.wake();
    const freshOnly = mode === "fresh";
    const own = freshOnly ? -1 : this.idle.findIndex((process) => process.boundCode === code);
    if (own >= 0) return Promise.resolve(this.idle.splice(own, 1)[0] as SandboxProcess);
    // A never-used process beyond the warm set's target (a recycled one, typically) serves a play better than sharing: no switches.
    const shared = mode === "play" && this.fresh.length <= this.prewarmTarget ? this.sharedProcessFor(code) : null;
    if (shared) {
      shared.reservePlay();
      return Promise.resolve(shared);
    }
    const started = performance.now();
    if (this.fresh.length > 0) {
      const process = this.fresh.shift() as SandboxProcess;
      pushSample(this.freshWaits, performance.now() - started);
      this.topUp();
      return Promise.resolve(process);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        code,
        freshOnly,
        shares: mode === "play",
        resolve: (process) => {
          if (process.boundCode === null) pushSample(this.freshWaits, performance.now() - started);
          resolve(process);
        },
        reject,
      };
      if (deadlineAt !== null) {
        const waitMs = Math.max(1, deadlineAt - Date.now());
        const timer = setTimeout(() => {
          const position = this.waiters.indexOf(waiter);
          if (position < 0) return;
          this.waiters.splice(position, 1);
          reject(new SandboxTimeoutError("open", waitMs));
        }, waitMs);
        const { resolve: done } = waiter;
        waiter.resolve = (process) => {
          clearTimeout(timer);
          done(process);
        };
        waiter.reject = (error) => {
          clearTimeout(timer);
          reject(error);
        };
      }
      this.waiters.push(waiter);
      this.topUp();
    });
  }

  /**
   * One play of `process` ended. `kept`: its close left the interpreter restorable; `lost`: a
   * sibling play took the process from it (not this play's doing, so the process is not ended for
   * it). A play that was not kept ends the process, and with it its siblings (each fails naming
   * why); the last play out hands the process back as `release` does.
   */
  private endPlay(process: SandboxProcess, play: number, outcome: { kept: boolean; lost: boolean }): void {
    const began = process.endPlay(play);
    if (began !== undefined) pushSample(this.holds, performance.now() - began);
    if (!outcome.kept && !outcome.lost) {
      process.kill({ play, reason: "a play's close could not leave the interpreter restorable (state outside its memory changed, it grew past the kept growth, or the play failed)" });
      return;
    }
    if (process.playsOpen > 0) {
      this.offerRoom(process);
      return;
    }
    this.release(process, process.alive);
  }

  /** A process of `code` that can take another play now (the fewest plays first), or null. */
  private sharedProcessFor(code: string): SandboxProcess | null {
    if (this.options.playsPerProcess <= 1 || this.unshareable.has(codeHash(code))) return null;
    let best: SandboxProcess | null = null;
    for (const process of this.live) {
      if (process.boundCode !== code || !process.canTakePlay(this.options.playsPerProcess)) continue;
      if (best === null || process.playsOpen < best.playsOpen) best = process;
    }
    return best;
  }

  /** Hands room in a process holding plays to the waiting plays of its game (a room reserved for each). */
  private offerRoom(process: SandboxProcess): void {
    const code = process.boundCode;
    if (this.disposed || code === null || this.options.playsPerProcess <= 1 || this.unshareable.has(codeHash(code))) return;
    while (process.canTakePlay(this.options.playsPerProcess)) {
      const index = this.waiters.findIndex((waiter) => waiter.shares && waiter.code === code);
      if (index < 0) return;
      const [waiter] = this.waiters.splice(index, 1);
      process.reservePlay();
      waiter?.resolve(process);
    }
  }

  /** Every answer to a play: the switch it cost, and whether its process can take another play now. */
  private noteReply(process: SandboxProcess, reply: ChildReply): void {
    if (typeof reply.switchMs === "number") pushSample(this.switches, reply.switchMs);
    const code = process.boundCode;
    if (reply.shareable === false && code !== null) {
      // A game whose play changed state outside the memory: its plays keep their processes to themselves from now on.
      if (this.unshareable.size >= MAX_REMEMBERED_UNSHAREABLE) this.unshareable.delete(this.unshareable.values().next().value as string);
      this.unshareable.add(codeHash(code));
      return;
    }
    this.offerRoom(process);
  }

  /** A process no play holds any more (or a repair's): idle for its game, handed to a waiting open, or ended when not kept. */
  private release(process: SandboxProcess, kept: boolean): void {
    if (this.disposed || !process.alive || !kept) {
      process.kill();
      return;
    }
    process.lastUsed = performance.now();
    const index = this.waiters.findIndex((waiter) => !waiter.freshOnly && waiter.code === process.boundCode);
    if (index >= 0) {
      const [waiter] = this.waiters.splice(index, 1);
      waiter?.resolve(process);
      return;
    }
    this.idle.push(process);
    // A game whose plays are all done does not need its process: it serves the next game.
    if (process.boundCode !== null && this.done.has(process.boundCode)) {
      this.recycleInto(process);
      return;
    }
    this.topUp();
    this.armIdleRelease();
  }

  /**
   * Hands never-used processes to waiting opens, and starts processes in the background: one for
   * each waiting open, the ones the announced plays will need (see `neededForPlans`) and, while
   * no play holds a process, the warm set; at most `maxStarting` at once, one while plays run;
   * within the capacity. Room is made only for a waiting open,
   * by ending an idle process its game does not need (`evictionCandidate`).
   */
  private topUp(): void {
    if (this.disposed) return;
    while (this.fresh.length > 0) {
      const index = this.waiters.findIndex((waiter) => waiter.freshOnly || !this.idle.some((process) => process.boundCode === waiter.code));
      if (index < 0) break;
      const [waiter] = this.waiters.splice(index, 1);
      waiter?.resolve(this.fresh.shift() as SandboxProcess);
    }
    const waiting = this.waitersNeedingFresh();
    // A process a game does not need is recycled (a memory copy) rather than a new one started.
    while (this.fresh.length + this.starting + this.recycling < waiting) {
      const spare = this.recycleCandidate();
      if (!spare) break;
      this.recycleInto(spare);
    }
    // While plays hold processes a start takes their CPU (it costs as much as dozens of plays): only
    // what an open or an announced game needs is started, one at a time; the warm set is refilled,
    // one per core at once, only while no play runs (the design phase, between rollouts).
    const playing = this.live.size - this.idle.length - this.fresh.length - this.recycling > 0;
    const needed = Math.max(waiting, this.neededForPlans());
    const wanted = needed + (this.dormant || playing ? 0 : this.prewarmTarget);
    const maxStarting = playing ? 1 : this.maxStarting;
    while (this.fresh.length + this.starting + this.recycling < wanted && this.starting < maxStarting) {
      if (this.live.size + this.starting >= this.capacityLimit) {
        if (this.fresh.length + this.starting >= waiting) return;
        const victim = this.evictionCandidate();
        if (!victim) return;
        this.idle.splice(this.idle.indexOf(victim), 1);
        this.live.delete(victim);
        this.counters.processesEvicted++;
        victim.kill();
      }
      this.startInBackground();
    }
  }

  /**
   * Waiting opens a never-used process should be started for: all of them, except an open whose
   * game has a process busy now while a session typically ends sooner than a process starts
   * (median hold vs median start): that open gets the game's own process when it is released.
   */
  private waitersNeedingFresh(): number {
    const hold = median(this.holds);
    const start = median(this.startWalls);
    if (hold === null || start === null || hold >= start) return this.waiters.length;
    const bound = this.boundCounts();
    return this.waiters.filter((waiter) => waiter.freshOnly || !bound.has(waiter.code)).length;
  }

  /** Live processes bound to each game. */
  private boundCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const process of this.live) if (process.boundCode !== null) counts.set(process.boundCode, (counts.get(process.boundCode) ?? 0) + 1);
    return counts;
  }

  /**
   * How many processes a game with plays to come keeps: its share of the plays in flight (the
   * concurrency spread over the games with plays to come), no more than its plays to come, at least one.
   */
  private keptFor(code: string): number {
    const toCome = this.planned.get(code) ?? 0;
    if (toCome === 0) return 0;
    const share = Math.ceil(this.playConcurrency / Math.max(1, this.planned.size));
    return Math.max(1, Math.min(toCome, share));
  }

  /**
   * Never-used processes the announced plays will need: one for each game with plays to come and
   * no process. A game that has one gets more only when a play of it waits (a start costs more CPU
   * than the wait for the game's own process, about one play).
   */
  private neededForPlans(): number {
    if (this.planned.size === 0) return 0;
    const bound = this.boundCounts();
    let needed = 0;
    for (const code of this.planned.keys()) if (!bound.has(code)) needed++;
    return needed;
  }

  /**
   * The idle process to end for a waiting open: the one idle longest among games with no plays to
   * come, else among processes beyond what their game keeps (`keptFor`). A game with plays to come
   * keeps its processes, unless nothing else can go on (no session open, nothing starting, every
   * idle process kept): then the game with the fewest plays to come gives one up. Null: wait.
   */
  private evictionCandidate(): SandboxProcess | null {
    const oldest = (list: SandboxProcess[]) => list.reduce<SandboxProcess | null>((best, process) => (best === null || process.lastUsed < best.lastUsed ? process : best), null);
    const free = this.idle.filter((process) => process.boundCode === null || !this.planned.has(process.boundCode));
    if (free.length > 0) return oldest(free);
    const bound = this.boundCounts();
    const surplus = this.idle.filter((process) => (bound.get(process.boundCode as string) ?? 0) > this.keptFor(process.boundCode as string));
    if (surplus.length > 0) return oldest(surplus);
    const busy = this.live.size - this.idle.length - this.fresh.length;
    if (busy > 0 || this.starting > 0 || this.idle.length === 0) return null;
    return this.idle.reduce((best, process) => ((this.planned.get(process.boundCode as string) ?? 0) < (this.planned.get(best.boundCode as string) ?? 0) ? process : best));
  }

  /**
   * The idle process to recycle for a waiting open (with `recycleProcesses`): like
   * `evictionCandidate`, the one idle longest among games with no plays to come, else among
   * processes beyond what their game keeps; a game never gives up a process it keeps. Null: none.
   */
  private recycleCandidate(): SandboxProcess | null {
    if (!this.options.recycleProcesses) return null;
    const oldest = (list: SandboxProcess[]) => list.reduce<SandboxProcess | null>((best, process) => (best === null || process.lastUsed < best.lastUsed ? process : best), null);
    const free = this.idle.filter((process) => process.boundCode === null || !this.planned.has(process.boundCode));
    if (free.length > 0) return oldest(free);
    const bound = this.boundCounts();
    return oldest(this.idle.filter((process) => (bound.get(process.boundCode as string) ?? 0) > this.keptFor(process.boundCode as string)));
  }

  /** Remembers that a game's announced plays are done (bounded, oldest forgotten first). */
  private markDone(code: string): void {
    if (!this.options.recycleProcesses) return;
    if (this.done.size >= MAX_REMEMBERED_DONE) this.done.delete(this.done.values().next().value as string);
    this.done.add(code);
  }

  /**
   * Puts an idle process back to its pristine state in the background; it then joins the
   * never-used processes (first in line: it is resident already). A refused or failed recycle
   * ends the process (replaced as any ended process is). Only with `recycleProcesses`.
   */
  private recycleInto(process: SandboxProcess): void {
    if (!this.options.recycleProcesses || this.disposed) return;
    const index = this.idle.indexOf(process);
    if (index < 0) return;
    this.idle.splice(index, 1);
    this.recycling++;
    process
      .recycle(this.options.callTimeoutMs)
      .catch((error: Error) => ({ recycled: false, reason: error.message, ms: null, cpuMs: null }))
      .then((outcome) => {
        this.recycling--;
        if (outcome.ms !== null) pushSample(this.recycleWalls, outcome.ms);
        if (outcome.cpuMs !== null) pushSample(this.recycleCpu, outcome.cpuMs);
        if (!outcome.recycled || this.disposed || !process.alive) {
          process.kill();
          return;
        }
        this.counters.processesRecycled++;
        this.fresh.unshift(process);
        this.topUp();
        this.armIdleRelease();
      })
      .catch(() => process.kill());
  }

  /** The memory-bound capacity, again: for the concurrency, the warm set and the games with plays to come. */
  private resize(): void {
    if (!this.memoryBoundCapacity) return;
    let heldBytes = 0;
    for (const process of this.live) heldBytes += readTreeUsage(process.pids).rssBytes ?? 0;
    this.capacityLimit = SandboxPool.memoryCapacity(this.baseCapacity + this.planned.size, { limitMb: this.options.memoryLimitMb, availableBytes: freemem(), heldBytes, ...this.parkedCopies() });
  }

  /** An open is coming: the pool is awake (warm set kept) and no idle release is due. */
  private wake(): void {
    this.dormant = false;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** With `idleReleaseMs` set, ends every idle and never-used process once no session was open for that long. */
  private armIdleRelease(): void {
    const after = this.options.idleReleaseMs;
    if (after === null || this.disposed || this.live.size === 0) return;
    const busy = this.live.size - this.idle.length - this.fresh.length;
    if (busy > 0 || this.waiters.length > 0) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.disposed || this.waiters.length > 0 || this.live.size - this.idle.length - this.fresh.length > 0) return;
      this.dormant = true;
      for (const process of this.idle.splice(0).concat(this.fresh.splice(0))) {
        this.live.delete(process);
        this.counters.processesReleasedIdle++;
        process.kill();
      }
    }, after);
    this.idleTimer.unref();
  }

  private startInBackground(): void {
    this.startProcess().catch((error: Error) => {
      this.failuresInARow++;
      if (this.failuresInARow >= 3) {
        this.broken = error;
        if (this.live.size + this.starting === 0) for (const waiter of this.waiters.splice(0)) waiter.reject(error);
        return;
      }
      setTimeout(() => this.topUp(), 500 * this.failuresInARow);
    });
  }

  /** Reads the snapshot file's header again (after a child found another file than the one verified): the file on disk is used from now on, or none. */
  private reverifySnapshot(): void {
    const header = this.cache?.verifiedHeader() ?? null;
    this.snapshotHeader = header;
    this.snapshotPath = header ? (this.cache?.path ?? null) : null;
    this.launch = buildSandboxLaunch({ confinement: this.options.confinement, snapshotPath: this.snapshotPath ?? undefined });
  }

  private async startProcess(): Promise<void> {
    this.starting++;
    let started;
    try {
      started = await SandboxProcess.start({
        launch: this.launch,
        files: this.files,
        snapshotPath: this.snapshotPath,
        snapshotHeader: this.snapshotHeader,
        wantSnapshot: this.snapshotPath === null,
        recyclable: this.options.recycleProcesses,
        memoryLimitMb: this.options.memoryLimitMb,
        memoryPollMs: this.options.memoryPollMs,
        idleCpuLimitMs: this.options.idleCpuLimitMs,
        startTimeoutMs: this.options.startTimeoutMs,
        maxFrameBytes: 16 * (2 * this.options.maxObservationChars + this.options.maxPrintChars) + 65_536,
      });
    } finally {
      this.starting--;
    }
    if (started.snapshot && this.snapshotPath === null && this.cache) {
      this.cache.write(started.snapshot);
      const header = this.cache.verifiedHeader();
      if (header) {
        this.snapshotHeader = header;
        this.snapshotPath = this.cache.path;
        this.launch = buildSandboxLaunch({ confinement: this.options.confinement, snapshotPath: this.snapshotPath });
      }
    }
    this.counters.processesStarted++;
    this.counters.startCpuMsTotal += started.cpuMs ?? 0;
    this.starts.push({ cpuMs: started.cpuMs, rssMb: started.rssBytes === null ? null : started.rssBytes / 1024 / 1024, pssMb: started.pssBytes === null ? null : started.pssBytes / 1024 / 1024, phases: started.phases });
    if (this.starts.length > SAMPLES) this.starts.shift();
    if (this.counters.processesStarted === 1) this.counters.firstStartMs = started.startMs;
    // A cold-booted interpreter is not in the state of one loaded from the snapshot (the in-memory
    // file system's inode counter and the interpreter's allocations differ: other id()s): once the
    // snapshot is cached, it is not handed out, so every play starts from the same process state.
    // That includes a child that was given the snapshot but booted cold because the file no longer
    // starts with the header this pool verified (another pool replaced a corrupt file): the header
    // is read again and the process started again, a bounded number of times.
    if (this.snapshotPath !== null && (started.snapshot || !started.fromSnapshot) && this.coldStartsRefused < MAX_COLD_STARTS_REFUSED) {
      this.coldStartsRefused++;
      started.process.kill();
      if (!started.snapshot) this.reverifySnapshot();
      return this.startProcess();
    }
    this.coldStartsRefused = 0;
    if (started.rssBytes !== null) pushSample(this.memorySamples, started.rssBytes / 1024 / 1024);
    pushSample(this.startWalls, started.startMs);
    this.failuresInARow = 0;
    const process = started.process;
    if (started.cpuMs !== null) pushSample(this.startCpu, started.cpuMs);
    this.parkedCopyBytes = Math.max(this.parkedCopyBytes ?? 0, process.parkedCopyBytes);
    this.pristineCopyBytes = Math.max(this.pristineCopyBytes ?? 0, process.pristineCopyBytes);
    this.live.add(process);
    process.onExit(() => this.forget(process));
    process.onReply((reply) => this.noteReply(process, reply));
    if (this.disposed) {
      process.kill();
      return;
    }
    this.fresh.push(process);
    this.resize();
    this.topUp();
    this.armIdleRelease();
  }

  private forget(process: SandboxProcess): void {
    const wasLive = this.live.delete(process);
    for (const list of [this.idle, this.fresh]) {
      const index = list.indexOf(process);
      if (index >= 0) list.splice(index, 1);
    }
    if (this.disposed) return;
    // Ended after a session that could not be restored, or died or killed: the warm set is topped up.
    if (wasLive) this.counters.processesReplaced++;
    this.topUp();
    this.armIdleRelease();
  }
}

/** A game's key in the pool's bounded memories (its code's SHA-256). */
function codeHash(code: string): string {
  return createHash("sha256").update(code).digest("base64");
}

/** Braces only, as the repair may add them. */
function withoutBraces(text: string): string {
  return text.replace(/[{}]/g, "");
}

/** The harness's repair answer, checked: a lying child cannot hand back other code than the input with braces added. */
function checkedRepairResult(value: unknown, code: string): RepairResult {
  const fail = (detail: string) => new SandboxProtocolError("repair", `the repair answer ${detail}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw fail("is not an object");
  const result = value as Record<string, unknown>;
  const keys = Object.keys(result).sort().join(",");
  if (keys !== "code,failure,parses,rounds") throw fail(`has the fields ${keys.slice(0, 80)}`);
  if (!(result.code === null || typeof result.code === "string")) throw fail("has a code that is not a string");
  if (!Number.isSafeInteger(result.rounds) || (result.rounds as number) < 0 || (result.rounds as number) > 20) throw fail("has rounds that are not a whole number from 0 to 20");
  if (typeof result.parses !== "boolean") throw fail("has no parses flag");
  if (!(result.failure === null || (typeof result.failure === "string" && result.failure.length <= 200))) throw fail("has a failure that is not a short string");
  if (typeof result.code === "string" && (result.code.length < code.length || withoutBraces(result.code) !== withoutBraces(code))) throw fail("changed more than braces");
  return { code: result.code, rounds: result.rounds as number, parses: result.parses, failure: result.failure };
}
