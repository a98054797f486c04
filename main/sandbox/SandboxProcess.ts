import { spawn, type ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { sandboxChildStdio } from "./confinement/childStdio.js";
import { SandboxCrashedError, SandboxMemoryError, SandboxProtocolError, SandboxSiblingError, SandboxTimeoutError } from "./errors.js";
import { CPU_TICK_MS, processTree, readTreePss, readTreeUsage } from "./processMemory.js";
import type { ChildReply, ChildRequest, StartPhase } from "./protocol.js";
import type { SandboxLaunch } from "./sandboxLaunch.js";

export interface SandboxProcessOptions {
  launch: SandboxLaunch;
  /** The Python harness files, by name, for a cold start. */
  files: Record<string, string>;
  /** A snapshot file from an earlier child (readable inside the sandbox): the child then skips the cold interpreter start. */
  snapshotPath: string | null;
  /** The snapshot file's header as the engine verified it; the child loads the file only when it still starts with exactly these bytes. Defaults to none (no snapshot). */
  snapshotHeader?: Buffer | null;
  /** Ask the child to send back the snapshot it makes (when it had to start cold). */
  wantSnapshot: boolean;
  memoryLimitMb: number;
  memoryPollMs: number;
  startTimeoutMs: number;
  /** The largest reply frame accepted, in bytes (the init reply carrying a snapshot may be larger). */
  maxFrameBytes: number;
  /** CPU time the child may use between requests before it is killed, in ms. */
  idleCpuLimitMs: number;
  /** How far the interpreter may grow past its pristine memory and still be kept for the next play, in bytes. Defaults to 64 MiB. */
  maxKeptGrowthBytes?: number;
  /** The child keeps a copy of its pristine interpreter apart, so that it can be recycled for another game (`recycle`). Defaults to false. */
  recyclable?: boolean;
}

/** The outcome of a `recycle` request. */
export interface RecycleOutcome {
  /** The child is back in its pristine state and may serve another game; false: it was ended. */
  recycled: boolean;
  /** Why the child refused (or the request failed); empty when recycled. */
  reason: string;
  /** Wall ms of the recycle in the child; null when it did not answer. */
  ms: number | null;
  /** CPU ms the child used for it; null when it did not answer. */
  cpuMs: number | null;
}

export interface StartedSandbox {
  process: SandboxProcess;
  /** The snapshot the child made, when it started cold and one was asked for. */
  snapshot: Uint8Array | null;
  /** True when the child loaded its interpreter from the snapshot file it was given (false: it booted cold). */
  fromSnapshot: boolean;
  /** From spawn to the interpreter ready, in ms. */
  startMs: number;
  /** Resident memory of the started sandbox (its whole process tree), in bytes; null where not measurable. */
  rssBytes: number | null;
  /** Its proportional set size (shared pages counted as its share), in bytes; null where not measurable. */
  pssBytes: number | null;
  /** CPU time of the whole process tree (confinement wrapper and runtime) from spawn to ready, in ms; null where not measurable. */
  cpuMs: number | null;
  /** Where the runtime's start went, as the child measured it (its own CPU, all threads, and wall time). */
  phases: StartPhase[];
}

interface Pending {
  id: number;
  operation: string;
  /** The play the request belongs to; null for requests of the process itself (init, repair). */
  play: number | null;
  /** The request opens its play. */
  opens: boolean;
  resolve: (reply: ChildReply) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** A request waiting behind the one in flight (a sibling play's): its time-out starts when it is sent. */
interface Queued {
  message: ChildRequest;
  operation: string;
  play: number | null;
  timeoutMs: number;
  deadlineAt: number | null;
  resolve: (reply: ChildReply) => void;
  reject: (error: Error) => void;
}

/** Options of one request. */
export interface RequestOptions {
  /** The play the request belongs to. Defaults to null (a request of the process itself). */
  play?: number | null;
  /** An overall deadline (epoch ms) that shortens the time-out when the request is sent. Defaults to none. */
  deadlineAt?: number | null;
}

/** Why a process ended, and for which play's request, so that sibling plays can say so. */
interface EndCause {
  play: number | null;
  reason: string;
}

const STDERR_TAIL = 8192;
const SNAPSHOT_FRAME_BYTES = 1024 * 1024 * 1024;
const DEFAULT_MAX_KEPT_GROWTH_BYTES = 64 * 1024 * 1024;
/** The largest pristine interpreter memory believed at init (a wasm32 heap is at most 4 GiB; a real one is about 30 MiB). */
const MAX_PRISTINE_BYTES = 512 * 1024 * 1024;
const TICK_MS = 10;

/**
 * One sandbox child process seen from the engine. One request at a time over a
 * newline-delimited JSON pipe; every byte the child sends is untrusted: a frame that is not
 * valid JSON, too large, unasked for or for another request kills the child with a
 * SandboxProtocolError. A watchdog checks the child's memory and CPU all the time, busy or idle.
 *
 * Several plays of the bound code may be open at once (`beginPlay`): their requests are sent one
 * at a time in order, and each request's time-out counts from when it is sent, so a sibling's
 * long step delays a play but never fails it. A process that ends fails every play it holds: the
 * play whose request was running with its own error, the others with a SandboxSiblingError that
 * names that reason.
 */
export class SandboxProcess {
  /** The environment code this process is bound to after its first open (it never runs other code). */
  boundCode: string | null = null;
  /** Sessions this process has served since it started or was last recycled. */
  sessions = 0;
  /** Times this process was put back to its pristine state for another game. */
  recycles = 0;
  lastUsed = 0;
  private nextId = 1;
  private pending: Pending | null = null;
  private readonly queue: Queued[] = [];
  /** Open plays and when each began (performance.now()). */
  private readonly plays = new Map<number, number>();
  private nextPlay = 1;
  /** The most plays open at once so far. */
  private peakPlays = 0;
  /** Plays begun whose open has not been answered yet. */
  private readonly opening = new Set<number>();
  /** Plays promised to opens that have not begun them yet (see `reservePlay`). */
  private reserved = 0;
  /** A play that must have the process to itself is open (validation's replay). */
  private exclusive = false;
  /** The last play answer's `shareable`. */
  private lastShareable = false;
  /** Plays dropped because a sibling changed state outside the memory, with why. */
  private readonly lost = new Map<number, string>();
  private endCause: EndCause | null = null;
  private replyListeners: Array<(reply: ChildReply) => void> = [];
  private dead = false;
  private killed = false;
  private stderrTail = "";
  private exitListeners: Array<() => void> = [];
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private frameLimit: number;
  /** The play whose state the child holds (the play of the last request sent, unless it closed it), or null. */
  private heldPlay: number | null = null;
  /** A `sendNext` is scheduled (`sendSoon`). */
  private sendScheduled = false;
  private readonly watchdog: NodeJS.Timeout;
  private tree: number[] = [];
  private idleSinceCpu: number | null = null;
  private lastPoll = 0;
  private peakRss = 0;
  /**
   * The copy of the state plays start from, which the child keeps beside the interpreter: never
   * charged to the environment. Its size is bounded by the pristine memory (reported at init,
   * before any environment code existed) plus the growth the child keeps.
   */
  private baseCopyBytes = 0;
  /** What the pristine copy a recyclable child keeps apart from the base holds resident (the pristine memory's non-zero pages), or 0. */
  private pristineBytesKept = 0;
  /** True when the child loaded its interpreter from the snapshot file (false: it booted cold). */
  loadedFromSnapshot = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: SandboxProcessOptions,
  ) {
    this.frameLimit = options.maxFrameBytes;
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    const pipe = child.stdio[3] as Readable | null;
    pipe?.on("data", (chunk: Buffer) => this.receive(chunk));
    pipe?.on("error", () => this.kill());
    child.on("exit", (code, signal) => this.exited(code, signal));
    child.on("error", (error) => this.exited(null, null, error));
    this.watchdog = setInterval(() => this.watch(), TICK_MS);
    this.watchdog.unref();
  }

  /** Spawns a child and waits until its interpreter is ready. */
  static async start(options: SandboxProcessOptions): Promise<StartedSandbox> {
    const started = performance.now();
    const { launch } = options;
    const child = spawn(launch.command, launch.args, {
      env: launch.env,
      stdio: sandboxChildStdio(1 + launch.extraInputs.length),
      detached: true,
    });
    launch.extraInputs.forEach((bytes, index) => {
      const input = child.stdio[4 + index] as Writable | null;
      input?.on("error", () => undefined);
      input?.end(bytes);
    });
    const sandbox = new SandboxProcess(child, options);
    try {
      if (options.wantSnapshot) sandbox.frameLimit = SNAPSHOT_FRAME_BYTES;
      const maxKeptGrowthBytes = options.maxKeptGrowthBytes ?? DEFAULT_MAX_KEPT_GROWTH_BYTES;
      const recyclable = options.recyclable ?? false;
      const reply = await sandbox.request({ op: "init", files: options.files, snapshotPath: options.snapshotPath, snapshotHeader: options.snapshotHeader?.toString("base64") ?? null, wantSnapshot: options.wantSnapshot, maxKeptGrowthBytes, recyclable }, "sandbox start", options.startTimeoutMs);
      const pristineBytes = Math.min(reply.memoryBytes ?? 0, MAX_PRISTINE_BYTES);
      sandbox.baseCopyBytes = pristineBytes + maxKeptGrowthBytes;
      // A recyclable child keeps the pristine copy beside the post-open base: resident, its non-zero pages only.
      sandbox.pristineBytesKept = recyclable ? Math.min(reply.pristineResidentBytes ?? pristineBytes, pristineBytes) : 0;
      sandbox.frameLimit = options.maxFrameBytes;
      sandbox.loadedFromSnapshot = reply.fromSnapshot === true;
      const snapshot = typeof reply.snapshot === "string" && reply.snapshot.length > 0 ? new Uint8Array(Buffer.from(reply.snapshot, "base64")) : null;
      if (child.pid !== undefined) sandbox.tree = processTree(child.pid);
      const { rssBytes, cpuTicks } = readTreeUsage(sandbox.tree);
      return { process: sandbox, snapshot, fromSnapshot: reply.fromSnapshot === true, startMs: performance.now() - started, rssBytes, pssBytes: readTreePss(sandbox.tree), cpuMs: cpuTicks === null ? null : cpuTicks * CPU_TICK_MS, phases: reply.phases ?? [] };
    } catch (error) {
      sandbox.kill();
      throw error;
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The processes of this sandbox on the host (the confinement wrapper and the runtime). */
  get pids(): number[] {
    return [...this.tree];
  }

  /** What one parked play's copy of the interpreter may take beside the limit (the pristine memory + the kept growth), in bytes. */
  get parkedCopyBytes(): number {
    return this.baseCopyBytes;
  }

  /** What the copy of the pristine memory a recyclable child keeps holds resident (its non-zero pages), in bytes; 0 when the child is not recyclable. */
  get pristineCopyBytes(): number {
    return this.pristineBytesKept;
  }

  /** The largest resident memory seen, in bytes. */
  get peakRssBytes(): number {
    return this.peakRss;
  }

  /** False once the child was killed or exited. */
  get alive(): boolean {
    return !this.dead && !this.killed;
  }

  onExit(listener: () => void): void {
    if (this.dead) listener();
    else this.exitListeners.push(listener);
  }

  /** Called with every reply the child gives to a play's request, after its plays' bookkeeping. */
  onReply(listener: (reply: ChildReply) => void): void {
    this.replyListeners.push(listener);
  }

  /** Plays open in this process now. */
  get playsOpen(): number {
    return this.plays.size;
  }

  /**
   * A new play of the bound code in this process (its id goes with every request of the play).
   * `exclusive`: no other play may join while it is open. Consumes a reservation if one was made.
   */
  beginPlay(exclusive = false): number {
    const play = this.nextPlay++;
    if (this.reserved > 0) this.reserved--;
    this.plays.set(play, performance.now());
    this.peakPlays = Math.max(this.peakPlays, this.plays.size);
    this.opening.add(play);
    if (exclusive) this.exclusive = true;
    return play;
  }

  /** Keeps room for one play that an open will begin shortly (a waiting open handed this process). */
  reservePlay(): void {
    this.reserved++;
  }

  /** Ends a play's bookkeeping; returns when it began, or undefined for a play not open. */
  endPlay(play: number): number | undefined {
    const began = this.plays.get(play);
    this.plays.delete(play);
    this.opening.delete(play);
    this.lost.delete(play);
    if (this.plays.size === 0) this.exclusive = false;
    return began;
  }

  /**
   * True when another play may join the open ones: the last answer to a play said the child can
   * park the play in its interpreter, every open play's open was answered, no play needs the
   * process to itself, and fewer than `maxPlays` are open or promised.
   */
  canTakePlay(maxPlays: number): boolean {
    const count = this.plays.size + this.reserved;
    return this.alive && this.plays.size > 0 && count < maxPlays && this.lastShareable && this.opening.size === 0 && !this.exclusive;
  }

  /** Why `play` can no longer go on in this process because of a sibling play, or null while it can. */
  siblingLoss(play: number): string | null {
    const lost = this.lost.get(play);
    if (lost !== undefined) return lost;
    const cause = this.endCause;
    if (!this.alive && cause && cause.play !== null && cause.play !== play) return `ended the process: ${cause.reason}`;
    return null;
  }

  /**
   * Sends one request, after the ones before it, and waits for its reply: at most `timeoutMs` from
   * when it is sent (shortened by `deadlineAt`), never counting the wait behind a sibling's request.
   */
  request(message: ChildRequest, operation: string, timeoutMs: number, options: RequestOptions = {}): Promise<ChildReply> {
    const play = options.play ?? null;
    if (!this.alive) return Promise.reject(this.endedError(operation, play, true));
    return new Promise<ChildReply>((resolve, reject) => {
      this.queue.push({ message, operation, play, timeoutMs, deadlineAt: options.deadlineAt ?? null, resolve, reject });
      this.sendNext();
    });
  }

  /**
   * Puts the child back to its pristine state for another game (no play may be open): it checks
   * that nothing outside the interpreter's memory changed and that the memory never grew, and
   * then answers as a never-used child. A child that refuses, fails or does not answer within
   * `timeoutMs` is killed. Only for a process started `recyclable`.
   */
  async recycle(timeoutMs: number): Promise<RecycleOutcome> {
    if (this.plays.size > 0 || this.reserved > 0) throw new Error("recycle needs a sandbox process with no play open");
    let reply: ChildReply;
    try {
      reply = await this.request({ op: "recycle" }, "recycle", timeoutMs);
    } catch (error) {
      this.kill();
      return { recycled: false, reason: (error as Error).message, ms: null, cpuMs: null };
    }
    const ms = typeof reply.resetMs === "number" ? reply.resetMs : null;
    const cpuMs = typeof reply.cpuMs === "number" ? reply.cpuMs : null;
    if (reply.recycled !== true) {
      const reason = (reply.output ?? "").slice(0, 300) || "the child did not say why";
      this.kill({ play: null, reason: `its recycle was refused (${reason})` });
      return { recycled: false, reason, ms, cpuMs };
    }
    this.boundCode = null;
    this.sessions = 0;
    this.recycles++;
    this.lastShareable = false;
    this.exclusive = false;
    this.lost.clear();
    return { recycled: true, reason: "", ms, cpuMs };
  }

  /**
   * The SHA-256 (hex) of the interpreter's whole memory as it is between requests (after the
   * restore that follows a `close`): equal digests mean byte-identical memories, which is how the
   * tests check that every restore and recycle is exact.
   */
  async memoryDigest(timeoutMs: number): Promise<string> {
    const reply = await this.request({ op: "digest" }, "digest", timeoutMs);
    if (typeof reply.digest !== "string") throw new SandboxProtocolError("digest", "the reply has no digest");
    return reply.digest;
  }

  /** Kills the child (SIGKILL); safe to call twice. `cause`: why, for the plays it holds. */
  kill(cause?: EndCause): void {
    if (this.dead || this.killed) return;
    this.endCause ??= cause ?? { play: this.pending?.play ?? null, reason: "the sandbox process was ended" };
    this.killed = true;
    clearInterval(this.watchdog);
    this.child.kill("SIGKILL");
    this.rejectQueued();
  }

  /** The error of a request that cannot be sent: the process ended, because of a sibling play or not. */
  private endedError(operation: string, play: number | null, neverRan: boolean): Error {
    const loss = play === null ? null : this.siblingLoss(play);
    if (loss !== null) return new SandboxSiblingError(operation, loss, neverRan);
    const cause = this.endCause?.reason;
    return new SandboxCrashedError(operation, `the sandbox process is no longer running${cause ? ` (${cause})` : ""}`);
  }

  /** Fails every request still waiting to be sent (the process ended). */
  private rejectQueued(): void {
    for (const queued of this.queue.splice(0)) queued.reject(this.endedError(queued.operation, queued.play, true));
  }

  /**
   * Sends the next waiting request when none is in flight; its time-out starts now. A request of
   * the play the child holds in its interpreter (the play of the request sent last, unless that
   * closed it) goes before the others: the child answers it without parking one play and putting
   * another back (each a comparison of the whole interpreter memory). Each play has at most one
   * request waiting, so the others wait for one request at most.
   */
  private sendNext(): void {
    if (this.pending || !this.alive) return;
    const held = this.heldPlay === null ? -1 : this.queue.findIndex((queued) => queued.play === this.heldPlay);
    const next = held >= 0 ? this.queue.splice(held, 1)[0] : this.queue.shift();
    if (!next) return;
    this.heldPlay = next.message.op === "close" ? null : next.play;
    const id = this.nextId++;
    const timeoutMs = next.deadlineAt === null ? next.timeoutMs : Math.max(1, Math.min(next.timeoutMs, next.deadlineAt - Date.now()));
    const timer = setTimeout(() => this.fail(new SandboxTimeoutError(next.operation, timeoutMs)), timeoutMs);
    this.pending = { id, operation: next.operation, play: next.play, opens: next.message.op === "open", resolve: next.resolve, reject: next.reject, timer };
    this.idleSinceCpu = null;
    const input = this.child.stdio[3] as Writable | null;
    if (!input) return this.fail(new SandboxCrashedError(next.operation, "the sandbox has no protocol pipe"));
    input.write(`${JSON.stringify({ id, ...next.message })}\n`);
  }

  /**
   * A play's answer: whether the child can take another play now. When it cannot while other
   * plays are open, those plays' parked state is gone (the child dropped it): each is failed with
   * that reason, and their waiting requests with it.
   */
  private noteShareable(reply: ChildReply, pending: Pending): void {
    if (pending.opens && pending.play !== null) this.opening.delete(pending.play);
    if (typeof reply.shareable !== "boolean") return;
    this.lastShareable = reply.shareable;
    if (reply.shareable) return;
    const reason = `changed state outside the interpreter's memory (or grew it past the kept growth) during its ${pending.operation}, so this play's parked state could no longer be put back exactly; the sibling keeps the process to itself`;
    for (const play of this.plays.keys()) if (play !== pending.play) this.lost.set(play, reason);
    for (let index = this.queue.length - 1; index >= 0; index--) {
      const queued = this.queue[index] as Queued;
      if (queued.play === null || !this.lost.has(queued.play)) continue;
      this.queue.splice(index, 1);
      queued.reject(new SandboxSiblingError(queued.operation, reason, true));
    }
  }

  /** Memory and CPU, busy or idle: fast while a request runs, slower while idle. */
  private watch(): void {
    if (!this.alive || this.tree.length === 0) return;
    const now = performance.now();
    const interval = this.pending ? this.options.memoryPollMs : this.options.memoryPollMs * 10;
    if (now - this.lastPoll < interval) return;
    this.lastPoll = now;
    const { rssBytes, cpuTicks } = readTreeUsage(this.tree);
    const operation = this.pending?.operation ?? "between requests";
    if (rssBytes !== null) {
      this.peakRss = Math.max(this.peakRss, rssBytes);
      // Beside the environment's limit: the base copy and, once plays shared the process, the buffer
      // each of them parks in (the child keeps one per play it ever held at once), each at most as large.
      const parkBuffers = this.peakPlays >= 2 ? this.peakPlays : 0;
      if (rssBytes > this.options.memoryLimitMb * 1024 * 1024 + this.baseCopyBytes * (1 + parkBuffers) + this.pristineBytesKept) {
        const usedMb = Math.round(rssBytes / 1024 / 1024);
        this.fail(new SandboxMemoryError(operation, `the sandbox used ${usedMb} MiB, over the ${this.options.memoryLimitMb} MiB limit; it was killed and replaced`));
        return;
      }
    }
    if (this.pending || cpuTicks === null) return;
    if (this.idleSinceCpu === null) {
      this.idleSinceCpu = cpuTicks;
      return;
    }
    const idleCpuMs = (cpuTicks - this.idleSinceCpu) * CPU_TICK_MS;
    if (idleCpuMs > this.options.idleCpuLimitMs) {
      this.fail(new SandboxCrashedError(operation, `the sandbox used ${idleCpuMs} ms of CPU while idle (code ran between requests); it was killed`));
    }
  }

  private receive(chunk: Buffer): void {
    if (!this.alive) return;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline < 0) break;
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.bufferedBytes + piece.length > this.frameLimit) return this.violation(`a frame of more than ${this.frameLimit} bytes`);
      const frame = this.buffered.length === 0 ? piece : Buffer.concat([...this.buffered, piece]);
      this.buffered = [];
      this.bufferedBytes = 0;
      this.frame(frame);
      if (!this.alive) return;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    if (this.bufferedBytes + rest.length > this.frameLimit) return this.violation(`a frame of more than ${this.frameLimit} bytes`);
    this.buffered.push(Buffer.from(rest));
    this.bufferedBytes += rest.length;
  }

  private frame(bytes: Buffer): void {
    const pending = this.pending;
    if (!pending) return this.violation("data sent while no request was running");
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString("utf8"));
    } catch {
      return this.violation("a frame that is not valid JSON");
    }
    const problem = replyProblem(parsed, pending.id);
    if (problem) return this.violation(problem);
    const reply = parsed as ChildReply;
    this.settle();
    if (reply.ok) {
      if (pending.play !== null) {
        this.noteShareable(reply, pending);
        for (const listener of this.replyListeners) listener(reply);
      }
      pending.resolve(reply);
      this.sendSoon();
    } else {
      // The child's own machinery failed (not the environment's code): its state is unknown.
      const detail = (reply.error ?? "unknown error").split("\n")[0] ?? "";
      this.kill({ play: pending.play, reason: `its ${pending.operation} failed in the sandbox's own machinery (${detail})` });
      pending.reject(new SandboxCrashedError(pending.operation, detail));
    }
  }

  /**
   * Sends the next request once what the reply set off has run: the engine asks a play's next
   * request (the reset after its open, the close after its last step) in the promise jobs its reply
   * resolves, so it is waiting by then and goes first (`sendNext`). A request made meanwhile is sent
   * at once, as always when none is in flight.
   */
  private sendSoon(): void {
    if (this.sendScheduled) return;
    this.sendScheduled = true;
    setImmediate(() => {
      this.sendScheduled = false;
      this.sendNext();
    });
  }

  private violation(detail: string): void {
    this.fail(new SandboxProtocolError(this.pending?.operation ?? "between requests", detail));
  }

  /** Kills the child and rejects the pending request with `error` (the waiting ones with a sibling's error naming it). */
  private fail(error: Error): void {
    const pending = this.pending;
    this.kill({ play: pending?.play ?? null, reason: error.message });
    if (!pending) return;
    this.settle();
    pending.reject(error);
  }

  private settle(): void {
    if (!this.pending) return;
    clearTimeout(this.pending.timer);
    this.pending = null;
    this.idleSinceCpu = null;
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
    clearInterval(this.watchdog);
    const pending = this.pending;
    if (pending) {
      this.settle();
      const detail = this.describeExit(code, signal, error);
      const failure = /heap out of memory|Out of memory|OOM/i.test(this.stderrTail) ? new SandboxMemoryError(pending.operation, `${detail}; it is replaced`) : new SandboxCrashedError(pending.operation, detail);
      this.endCause ??= { play: pending.play, reason: failure.message };
      pending.reject(failure);
    } else {
      this.endCause ??= { play: null, reason: this.describeExit(code, signal, error) };
    }
    this.rejectQueued();
    for (const listener of this.exitListeners.splice(0)) listener();
  }
}

const REPLY_FIELDS: Record<string, (value: unknown) => boolean> = {
  id: (value) => Number.isSafeInteger(value),
  ok: (value) => typeof value === "boolean",
  error: (value) => typeof value === "string",
  output: (value) => typeof value === "string",
  reply: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  resetMs: (value) => value === null || (typeof value === "number" && Number.isFinite(value) && value >= 0),
  kept: (value) => typeof value === "boolean",
  shareable: (value) => typeof value === "boolean",
  switchMs: (value) => value === null || (typeof value === "number" && Number.isFinite(value) && value >= 0),
  fromBase: (value) => typeof value === "boolean",
  recycled: (value) => typeof value === "boolean",
  cpuMs: (value) => typeof value === "number" && Number.isFinite(value) && value >= 0,
  startMs: (value) => typeof value === "number" && Number.isFinite(value) && value >= 0,
  snapshot: (value) => value === null || typeof value === "string",
  fromSnapshot: (value) => typeof value === "boolean",
  memoryBytes: (value) => Number.isSafeInteger(value),
  pristineResidentBytes: (value) => Number.isSafeInteger(value) && (value as number) >= 0,
  digest: (value) => typeof value === "string" && /^[0-9a-f]{64}$/.test(value),
  phases: (value) => Array.isArray(value) && value.length <= 32 && value.every(isStartPhase),
};

/** A [name, cpu ms, wall ms] triple with a short name and finite, non-negative numbers. */
function isStartPhase(value: unknown): value is StartPhase {
  if (!Array.isArray(value) || value.length !== 3) return false;
  const [name, cpu, wall] = value as unknown[];
  const finite = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n >= 0;
  return typeof name === "string" && /^[A-Za-z]{1,40}$/.test(name) && finite(cpu) && finite(wall);
}

/** What is wrong with a parsed reply frame, or null when it is a well-formed reply to request `id`. */
export function replyProblem(frame: unknown, id: number): string | null {
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return "a frame that is not a JSON object";
  for (const [key, value] of Object.entries(frame)) {
    const check = REPLY_FIELDS[key];
    if (!check) return `a frame with the unknown field ${JSON.stringify(key.slice(0, 40))}`;
    if (!check(value)) return `a frame whose ${key} has the wrong type`;
  }
  const reply = frame as Partial<ChildReply>;
  if (reply.id !== id) return `a reply to request ${String(reply.id)} while request ${id} was running`;
  if (typeof reply.ok !== "boolean") return "a frame without ok";
  return null;
}
