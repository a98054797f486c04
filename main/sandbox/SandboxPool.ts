import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resourcePath } from "../paths.js";
import type { EnvSession } from "./EnvSession.js";
import { SandboxCrashedError, SandboxTimeoutError } from "./errors.js";
import type { OpenResult } from "./protocol.js";
import { callTimeout, harnessErrorToException, parseHarnessReply, SandboxEnvSession, type SessionLimits } from "./SandboxEnvSession.js";
import { buildSandboxLaunch, pyodideDirectory, sandboxHostScript, type SandboxLaunch } from "./sandboxLaunch.js";
import { SandboxProcess } from "./SandboxProcess.js";
import { SnapshotCache } from "./snapshotCache.js";

export interface SandboxPoolOptions {
  /** Warm sandbox processes; at most this many sessions are open at once (more `open()` calls wait). Defaults to 2. */
  size?: number;
  /** Deadline of one `step()`, in ms. Defaults to 30000. */
  stepTimeoutMs?: number;
  /** Deadline of the other calls (open, reset, hint, solution, close), in ms. Defaults to 30000. */
  callTimeoutMs?: number;
  /** A sandbox process whose resident memory goes over this many MiB is killed. Defaults to 1024. */
  memoryLimitMb?: number;
  /** How often the memory of a busy sandbox is checked, in ms. Defaults to 25. */
  memoryPollMs?: number;
  /** Longer observations are cut here and end with a "[observation truncated: ...]" note; also the limit for info as JSON. Defaults to 65536. */
  maxObservationChars?: number;
  /** Printed output kept per session; the rest is dropped with a note. Defaults to 65536. */
  maxPrintChars?: number;
  /** Deadline for a sandbox process to start, in ms. Defaults to 120000. */
  startTimeoutMs?: number;
  /** Where the interpreter snapshot is cached between runs; null keeps it in memory only. Defaults to SnapshotCache.defaultDirectory(). */
  snapshotCacheDir?: string | null;
  /** "auto" runs each sandbox in its own network namespace where `unshare -rn` works. Defaults to "auto". */
  networkIsolation?: "auto" | "off";
}

export interface OpenOptions {
  /** Overrides the pool's step deadline for this session. Defaults to the pool's stepTimeoutMs. */
  stepTimeoutMs?: number;
  /** Overrides the pool's deadline for the other calls of this session. Defaults to the pool's callTimeoutMs. */
  callTimeoutMs?: number;
  /** An overall deadline (epoch ms): every call of the session, `open` included, ends by then at the latest. Defaults to none. */
  deadlineAt?: number;
}

export interface SandboxPoolStats {
  processesStarted: number;
  /** Processes that died or were killed (timeouts, memory) and were replaced. */
  processesReplaced: number;
  /** Sessions that got a fresh interpreter. */
  freshInterpreters: number;
  /** Sessions that reused the clean interpreter of the same code. */
  reusedInterpreters: number;
  /** Start time of the first process, in ms. */
  firstStartMs: number;
}

interface Waiter {
  code: string;
  resolve: (process: SandboxProcess) => void;
  reject: (error: Error) => void;
}

const HARNESS_FILES = ["spade_sandbox.py", "spade_env.py"];

/**
 * Keeps `size` warm sandbox processes so that opening one more environment does not pay the
 * interpreter's start-up, and replaces killed ones in the background. Each `open()` runs the code
 * in an interpreter that only ever ran that same code and was left clean, or in a fresh one.
 */
export class SandboxPool {
  readonly size: number;
  /** The isolation layers in force, for people and logs. */
  readonly isolation: string;
  private readonly idle: SandboxProcess[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly live = new Set<SandboxProcess>();
  private starting = 0;
  private disposed = false;
  private failuresInARow = 0;
  /** Set when replacement processes failed to start three times in a row. */
  private broken: Error | null = null;
  private readonly counters: SandboxPoolStats = { processesStarted: 0, processesReplaced: 0, freshInterpreters: 0, reusedInterpreters: 0, firstStartMs: 0 };

  private constructor(
    private readonly options: Required<Omit<SandboxPoolOptions, "snapshotCacheDir">>,
    private readonly launch: SandboxLaunch,
    private readonly files: Record<string, string>,
    private readonly cache: SnapshotCache | null,
    private snapshot: Uint8Array | null,
  ) {
    this.size = options.size;
    this.isolation = launch.isolation;
  }

  static async create(options: SandboxPoolOptions = {}): Promise<SandboxPool> {
    const resolved = {
      size: options.size ?? 2,
      stepTimeoutMs: options.stepTimeoutMs ?? 30_000,
      callTimeoutMs: options.callTimeoutMs ?? 30_000,
      memoryLimitMb: options.memoryLimitMb ?? 1024,
      memoryPollMs: options.memoryPollMs ?? 25,
      maxObservationChars: options.maxObservationChars ?? 65_536,
      maxPrintChars: options.maxPrintChars ?? 65_536,
      startTimeoutMs: options.startTimeoutMs ?? 120_000,
      networkIsolation: options.networkIsolation ?? "auto",
    };
    for (const [name, value] of Object.entries(resolved)) {
      if (typeof value === "number" && (!Number.isInteger(value) || value < 1)) {
        throw new RangeError(`SandboxPool option ${name} must be a whole number of at least 1, got ${value}`);
      }
    }
    const files = Object.fromEntries(HARNESS_FILES.map((name) => [name, readFileSync(resourcePath("python", name), "utf8")]));
    const launch = buildSandboxLaunch({ networkIsolation: resolved.networkIsolation });
    const cacheDir = options.snapshotCacheDir === undefined ? SnapshotCache.defaultDirectory() : options.snapshotCacheDir;
    const pyodideVersion = String(JSON.parse(readFileSync(join(pyodideDirectory(), "package.json"), "utf8")).version);
    const key = SnapshotCache.keyFor([pyodideVersion, process.version, readFileSync(sandboxHostScript(), "utf8"), ...HARNESS_FILES.map((name) => files[name] ?? "")]);
    const cache = cacheDir === null ? null : new SnapshotCache(cacheDir, key);
    const pool = new SandboxPool(resolved, launch, files, cache, cache?.read() ?? null);
    try {
      await pool.startProcess();
      await Promise.all(Array.from({ length: resolved.size - 1 }, () => pool.startProcess()));
    } catch (error) {
      await pool.dispose();
      throw error;
    }
    return pool;
  }

  stats(): SandboxPoolStats {
    return { ...this.counters };
  }

  /** Runs `code` in a sandbox and creates its single `*Env` class; the session holds a process until closed. */
  async open(code: string, options: OpenOptions = {}): Promise<EnvSession> {
    if (typeof code !== "string") throw new TypeError("SandboxPool.open(code) expects the environment's Python source as a string");
    const limits: SessionLimits = {
      stepTimeoutMs: options.stepTimeoutMs ?? this.options.stepTimeoutMs,
      callTimeoutMs: options.callTimeoutMs ?? this.options.callTimeoutMs,
      maxPrintChars: this.options.maxPrintChars,
      deadlineAt: options.deadlineAt ?? null,
    };
    const process = await this.acquire(code, limits.deadlineAt);
    const reply = await process
      .request({ op: "open", code, maxObservationChars: this.options.maxObservationChars, maxPrintChars: this.options.maxPrintChars }, "open", callTimeout(limits.callTimeoutMs, limits.deadlineAt))
      .catch((error: Error) => {
        this.release(process, null);
        throw error;
      });
    if (reply.fresh === true) this.counters.freshInterpreters++;
    else this.counters.reusedInterpreters++;
    const response = parseHarnessReply<OpenResult>(reply, "open");
    const release = (sandbox: SandboxProcess, kept: boolean) => this.release(sandbox, kept ? code : null);
    const session = new SandboxEnvSession(process, response.ok ? response.result : { className: "", kind: "text", tools: null, hasHint: false }, reply.fresh === true, limits, release);
    session.addPrinted(reply.output ?? "");
    session.addPrinted(response.printed);
    if (!response.ok) {
      await session.close();
      throw harnessErrorToException(response.error);
    }
    return session;
  }

  /** Kills every sandbox process; pending `open()` calls fail. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new SandboxCrashedError("open", "the sandbox pool was disposed"));
    const exits = [...this.live].map((process) => new Promise<void>((resolve) => process.onExit(resolve)));
    for (const process of this.live) process.kill();
    this.idle.length = 0;
    await Promise.all(exits);
  }

  /** An idle process for `code`, waiting for one if all are busy (at most until `deadlineAt`). */
  private acquire(code: string, deadlineAt: number | null): Promise<SandboxProcess> {
    if (this.disposed) return Promise.reject(new SandboxCrashedError("open", "the sandbox pool was disposed"));
    if (this.broken && this.live.size + this.starting === 0) return Promise.reject(this.broken);
    const index = this.pickIdle(code);
    if (index >= 0) return Promise.resolve(this.idle.splice(index, 1)[0] as SandboxProcess);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { code, resolve, reject };
      if (deadlineAt !== null) {
        const waitMs = Math.max(1, deadlineAt - Date.now());
        const timer = setTimeout(() => {
          const position = this.waiters.indexOf(waiter);
          if (position < 0) return;
          this.waiters.splice(position, 1);
          reject(new SandboxTimeoutError("open", waitMs));
        }, waitMs);
        waiter.resolve = (process) => {
          clearTimeout(timer);
          resolve(process);
        };
        waiter.reject = (error) => {
          clearTimeout(timer);
          reject(error);
        };
      }
      this.waiters.push(waiter);
    });
  }

  /** The idle process that kept this code's interpreter, else the one idle longest (its spare interpreter is most likely ready). */
  private pickIdle(code: string): number {
    if (this.idle.length === 0) return -1;
    const same = this.idle.findIndex((process) => process.keptCode === code);
    if (same >= 0) return same;
    let oldest = 0;
    this.idle.forEach((process, index) => {
      if (process.lastUsed < (this.idle[oldest] as SandboxProcess).lastUsed) oldest = index;
    });
    return oldest;
  }

  private release(process: SandboxProcess, keptCode: string | null): void {
    if (this.disposed || !process.alive) {
      process.kill();
      return;
    }
    process.keptCode = keptCode;
    process.lastUsed = performance.now();
    this.handOut(process);
  }

  private handOut(process: SandboxProcess): void {
    if (this.waiters.length === 0) {
      this.idle.push(process);
      return;
    }
    let index = this.waiters.findIndex((waiter) => waiter.code === process.keptCode);
    if (index < 0) index = 0;
    const [waiter] = this.waiters.splice(index, 1);
    waiter?.resolve(process);
  }

  private async startProcess(): Promise<void> {
    this.starting++;
    try {
      const started = await SandboxProcess.start({
        launch: this.launch,
        files: this.files,
        snapshot: this.snapshot,
        wantSnapshot: true,
        memoryLimitMb: this.options.memoryLimitMb,
        memoryPollMs: this.options.memoryPollMs,
        startTimeoutMs: this.options.startTimeoutMs,
      });
      if (started.snapshot) {
        this.snapshot = started.snapshot;
        this.cache?.write(started.snapshot);
      }
      this.counters.processesStarted++;
      if (this.counters.processesStarted === 1) this.counters.firstStartMs = started.startMs;
      this.failuresInARow = 0;
      const process = started.process;
      this.live.add(process);
      process.onExit(() => this.replace(process));
      if (this.disposed) process.kill();
      else this.release(process, null);
    } finally {
      this.starting--;
    }
  }

  private replace(process: SandboxProcess): void {
    this.live.delete(process);
    const index = this.idle.indexOf(process);
    if (index >= 0) this.idle.splice(index, 1);
    if (this.disposed) return;
    this.counters.processesReplaced++;
    this.startReplacement();
  }

  private startReplacement(): void {
    this.startProcess().catch((error: Error) => {
      this.failuresInARow++;
      if (this.failuresInARow >= 3) {
        this.broken = error;
        if (this.live.size + this.starting === 0) for (const waiter of this.waiters.splice(0)) waiter.reject(error);
        return;
      }
      setTimeout(() => {
        if (!this.disposed) this.startReplacement();
      }, 500 * this.failuresInARow);
    });
  }
}
