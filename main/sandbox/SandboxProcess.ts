import { spawn, type ChildProcess } from "node:child_process";
import { SandboxCrashedError, SandboxMemoryError, SandboxTimeoutError } from "./errors.js";
import { readRssBytes } from "./processMemory.js";
import type { ChildReply, ChildRequest } from "./protocol.js";
import type { SandboxLaunch } from "./sandboxLaunch.js";

export interface SandboxProcessOptions {
  launch: SandboxLaunch;
  /** The Python harness files, by name, for the child's first interpreter. */
  files: Record<string, string>;
  /** A snapshot from an earlier child: the child then skips the cold interpreter start. */
  snapshot: Uint8Array | null;
  /** Ask the child to send back the snapshot it makes (when it had to start cold). */
  wantSnapshot: boolean;
  memoryLimitMb: number;
  memoryPollMs: number;
  startTimeoutMs: number;
}

export interface StartedSandbox {
  process: SandboxProcess;
  /** The snapshot the child made, when it started cold and one was asked for. */
  snapshot: Uint8Array | null;
  /** From spawn to the first interpreter ready, in ms. */
  startMs: number;
}

interface Pending {
  id: number;
  operation: string;
  resolve: (reply: ChildReply) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  poll: NodeJS.Timeout | null;
}

const STDERR_TAIL = 8192;

/**
 * One sandbox child process seen from the engine: one request at a time, each with a deadline
 * and, on Linux, an RSS watch; a timeout or a memory overrun kills the child with SIGKILL.
 * Everything the child sends is untrusted and checked.
 */
export class SandboxProcess {
  /** Bookkeeping for the pool: the code whose interpreter the child keeps, if any. */
  keptCode: string | null = null;
  lastUsed = 0;
  private nextId = 1;
  private pending: Pending | null = null;
  private dead = false;
  private killed = false;
  private stderrTail = "";
  private exitListeners: Array<() => void> = [];

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: SandboxProcessOptions,
  ) {
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    child.on("message", (message) => this.receive(message));
    child.on("exit", (code, signal) => this.exited(code, signal));
    child.on("error", (error) => this.exited(null, null, error));
  }

  /** Spawns a child and waits until its first interpreter is ready. */
  static async start(options: SandboxProcessOptions): Promise<StartedSandbox> {
    const started = performance.now();
    const child = spawn(options.launch.command, options.launch.args, {
      env: options.launch.env,
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
    });
    const sandbox = new SandboxProcess(child, options);
    try {
      await sandbox.waitForReady();
      const reply = await sandbox.request(
        { op: "init", files: options.files, snapshot: options.snapshot, wantSnapshot: options.wantSnapshot },
        "sandbox start",
        options.startTimeoutMs,
      );
      const snapshot = reply.snapshot instanceof Uint8Array ? reply.snapshot : null;
      return { process: sandbox, snapshot, startMs: performance.now() - started };
    } catch (error) {
      sandbox.kill();
      throw error;
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** False once the child was killed or exited. */
  get alive(): boolean {
    return !this.dead && !this.killed;
  }

  onExit(listener: () => void): void {
    if (this.dead) listener();
    else this.exitListeners.push(listener);
  }

  /** Sends one request and waits for its reply, at most `timeoutMs`. */
  request(message: ChildRequest, operation: string, timeoutMs: number): Promise<ChildReply> {
    if (!this.alive) return Promise.reject(new SandboxCrashedError(operation, "the sandbox process is no longer running"));
    if (this.pending) return Promise.reject(new SandboxCrashedError(operation, `a request (${this.pending.operation}) is still running`));
    const id = this.nextId++;
    return new Promise<ChildReply>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new SandboxTimeoutError(operation, timeoutMs)), timeoutMs);
      const poll = process.platform === "linux" ? setInterval(() => this.checkMemory(operation), this.options.memoryPollMs) : null;
      this.pending = { id, operation, resolve, reject, timer, poll };
      try {
        this.child.send({ id, ...message });
      } catch (error) {
        this.fail(new SandboxCrashedError(operation, `could not send the request: ${(error as Error).message}`));
      }
    });
  }

  /** Kills the child (SIGKILL); safe to call twice. */
  kill(): void {
    if (this.dead || this.killed) return;
    this.killed = true;
    this.child.kill("SIGKILL");
  }

  private waitForReady(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.off("message", onMessage);
        reject(new SandboxTimeoutError("sandbox start", this.options.startTimeoutMs));
      }, this.options.startTimeoutMs);
      const onMessage = (message: unknown) => {
        if ((message as { ready?: unknown } | null)?.ready === true) {
          clearTimeout(timer);
          this.child.off("message", onMessage);
          resolve();
        }
      };
      this.child.on("message", onMessage);
      this.onExit(() => {
        clearTimeout(timer);
        reject(new SandboxCrashedError("sandbox start", this.describeExit()));
      });
    });
  }

  private checkMemory(operation: string): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    const rss = readRssBytes(pid);
    const limit = this.options.memoryLimitMb * 1024 * 1024;
    if (rss !== null && rss > limit) {
      const usedMb = Math.round(rss / 1024 / 1024);
      this.fail(new SandboxMemoryError(operation, `the sandbox used ${usedMb} MiB, over the ${this.options.memoryLimitMb} MiB limit; it was killed and replaced`));
    }
  }

  private receive(message: unknown): void {
    const pending = this.pending;
    if (!pending || typeof message !== "object" || message === null) return;
    const reply = message as ChildReply;
    if (reply.id !== pending.id || typeof reply.ok !== "boolean") return;
    this.settle();
    if (reply.ok) pending.resolve(reply);
    else {
      // The child's own machinery failed (not the environment's code): its state is unknown.
      this.kill();
      pending.reject(new SandboxCrashedError(pending.operation, String(reply.error ?? "unknown error").split("\n")[0] ?? ""));
    }
  }

  /** Kills the child and rejects the pending request with `error`. */
  private fail(error: Error): void {
    const pending = this.pending;
    this.kill();
    if (!pending) return;
    this.settle();
    pending.reject(error);
  }

  private settle(): void {
    if (!this.pending) return;
    clearTimeout(this.pending.timer);
    if (this.pending.poll) clearInterval(this.pending.poll);
    this.pending = null;
  }

  private describeExit(code?: number | null, signal?: NodeJS.Signals | null, error?: Error): string {
    if (error) return `the sandbox process could not run: ${error.message}`;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code ?? this.child.exitCode}`;
    const tail = this.stderrTail.trim().split("\n").slice(-3).join(" | ");
    return `the sandbox process ${how}${tail ? `: ${tail}` : ""}`;
  }

  private exited(code: number | null, signal: NodeJS.Signals | null, error?: Error): void {
    if (this.dead) return;
    this.dead = true;
    const pending = this.pending;
    if (pending) {
      this.settle();
      const detail = this.describeExit(code, signal, error);
      pending.reject(
        /heap out of memory|Out of memory|OOM/i.test(this.stderrTail)
          ? new SandboxMemoryError(pending.operation, `${detail}; it is replaced`)
          : new SandboxCrashedError(pending.operation, detail),
      );
    }
    for (const listener of this.exitListeners.splice(0)) listener();
  }
}
