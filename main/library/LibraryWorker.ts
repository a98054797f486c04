import { spawn, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";
import { resourcePath } from "../paths.js";
import { EnvironmentCodeError, SandboxCrashedError, SandboxMemoryError, SandboxTimeoutError } from "../sandbox/errors.js";

export interface LibraryWorkerOptions {
  /** The Python interpreter. */
  python: string;
  /** Address-space limit of the process, in MiB (0: none). Defaults to 4096. */
  memoryMb?: number;
  /** How long to wait for the worker's `ready` line. Defaults to 120000 ms. */
  startTimeoutMs?: number;
  /** The worker script. Defaults to resources/python/spade_library.py. */
  script?: string;
}

interface Pending {
  op: string;
  resolve: (answer: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | null;
}

/** The log tail kept for crash messages, in characters. */
const LOG_TAIL = 4000;

/**
 * One Python process of the user's interpreter running an installed environment library, spoken
 * to one JSON line at a time (`resources/python/spade_library.py`). Calls run one at a time; a
 * call past its deadline kills the process (SandboxTimeoutError), a process that dies fails its
 * call (SandboxCrashedError, with the end of its stderr), and an exception of the library is that
 * call's EnvironmentCodeError: what happens in a library play is that play's error, never the run's.
 * It gets no workspace path and an environment with nothing of the engine's but PATH and HOME.
 */
export class LibraryWorker {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private log = "";
  private exited = false;
  private killedFor: Error | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly options: LibraryWorkerOptions) {
    const script = options.script ?? resourcePath("python", "spade_library.py");
    this.child = spawn(options.python, ["-u", script], {
      cwd: tmpdir(),
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? tmpdir(),
        LANG: "C.UTF-8",
        PYTHONUNBUFFERED: "1",
        PYTHONDONTWRITEBYTECODE: "1",
        SPADE_LIBRARY_MEMORY_MB: String(options.memoryMb ?? 4096),
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    createInterface({ input: this.child.stdout! }).on("line", (line) => this.onLine(line));
    this.child.stderr!.on("data", (chunk: Buffer) => {
      this.log = (this.log + chunk.toString("utf8")).slice(-LOG_TAIL);
    });
    this.child.stdin!.on("error", () => {
      // a dead worker: the close handler fails what is pending
    });
    this.child.once("error", (error) => this.onExit(`cannot start ${options.python}: ${error.message}`));
    this.child.once("close", (code, signal) => this.onExit(signal ? `signal ${signal}` : `exit code ${code}`));
  }

  private ready: Pending | null = null;

  /** Starts a worker and waits for its `ready` line. */
  static async start(options: LibraryWorkerOptions): Promise<LibraryWorker> {
    const worker = new LibraryWorker(options);
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    await new Promise<Record<string, unknown>>((resolve, reject) => {
      worker.ready = { op: "start", resolve, reject, timer: null };
      worker.ready.timer = setTimeout(() => worker.kill(new SandboxTimeoutError("start", timeoutMs)), timeoutMs);
    }).finally(() => {
      if (worker.ready?.timer) clearTimeout(worker.ready.timer);
      worker.ready = null;
    });
    return worker;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /**
   * One request; `timeoutMs` null waits without a deadline. Resolves with the answer's values;
   * rejects with the library's error (EnvironmentCodeError) or the process's end.
   */
  call(op: string, payload: Record<string, unknown>, timeoutMs: number | null): Promise<Record<string, unknown>> {
    const run = () => this.send(op, payload, timeoutMs);
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private send(op: string, payload: Record<string, unknown>, timeoutMs: number | null): Promise<Record<string, unknown>> {
    if (this.exited) return Promise.reject(this.killedFor ?? new SandboxCrashedError(op, `the library worker has exited${this.stderrTail()}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const pending: Pending = { op, resolve, reject, timer: null };
      if (timeoutMs !== null) pending.timer = setTimeout(() => this.kill(new SandboxTimeoutError(op, timeoutMs)), timeoutMs);
      this.pending.set(id, pending);
      this.child.stdin!.write(`${JSON.stringify({ id, op, ...payload })}\n`);
    });
  }

  /** Ends the process; what is pending fails with `reason` (or a crash). */
  kill(reason?: Error): void {
    if (reason && !this.killedFor) this.killedFor = reason;
    if (!this.exited) this.child.kill("SIGKILL");
  }

  private onLine(line: string): void {
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.log = (this.log + `${line}\n`).slice(-LOG_TAIL);
      return;
    }
    if (this.ready && answer.ready === true) {
      this.ready.resolve(answer);
      return;
    }
    const pending = this.pending.get(answer.id as number);
    if (!pending) return;
    this.pending.delete(answer.id as number);
    if (pending.timer) clearTimeout(pending.timer);
    if (answer.ok === true) {
      const { id: _id, ok: _ok, ...values } = answer;
      pending.resolve(values);
      return;
    }
    const message = typeof answer.error === "string" ? answer.error : "the library gave no reason";
    pending.reject(/^out of memory/.test(message) ? new SandboxMemoryError(pending.op, message) : new EnvironmentCodeError(pending.op, message, ""));
  }

  private onExit(detail: string): void {
    if (this.exited) return;
    this.exited = true;
    const error = (op: string) => this.killedFor ?? new SandboxCrashedError(op, `the library worker ended (${detail})${this.stderrTail()}`);
    if (this.ready) {
      if (this.ready.timer) clearTimeout(this.ready.timer);
      this.ready.reject(error("start"));
    }
    for (const pending of this.pending.values()) {
      if (pending.timer) clearTimeout(pending.timer);
      pending.reject(error(pending.op));
    }
    this.pending.clear();
  }

  private stderrTail(): string {
    const tail = this.log.trim().split("\n").slice(-6).join("\n");
    return tail ? `; its last output:\n${tail}` : "";
  }
}
