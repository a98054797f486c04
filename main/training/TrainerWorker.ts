import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { resourcePath } from "../paths.js";
import { resolveTrainerPython } from "./resolveTrainerPython.js";
import { trainerAllocatorEnv } from "./trainerAllocatorEnv.js";
import { TrainerCancelledError } from "./TrainerCancelledError.js";
import { parseTrainerMessage, type LlamaRounding, type LogprobsCommand, type MemoryCommand, type TrainCommand, type TrainerHyper, type TrainerMemory, type TrainerMessage, type TrainerMetrics, type TrainerMismatch, type TrainerProgress } from "./trainerProtocol.js";
import { TrainerWorkerError } from "./TrainerWorkerError.js";

/** The built-in trainers: "gguf" (LoRA on the GGUF, PyTorch only) and "hf" (transformers + PEFT). */
export type TrainerKind = "gguf" | "hf";

export interface TrainerWorkerOptions {
  /** Which built-in trainer runs. Defaults to "gguf". */
  trainer?: TrainerKind;
  /** The Python interpreter. Defaults to `resolveTrainerPython()` (training.python, SPADE_PYTHON, the managed environment, a python3 on PATH with torch, Debian's). */
  python?: string;
  /** The trainer script. Defaults to resources/trainers/train_gguf.py ("gguf") or train_lora.py ("hf"). */
  script?: string;
  /** PyTorch device: "auto" (cuda when available), "cpu", "cuda", "cuda:1", ... Defaults to "auto". */
  device?: string;
  /** Compute type of the base weights; "auto" is bfloat16 on a GPU that has it, else float32. Defaults to "auto". */
  dtype?: "auto" | "float32" | "bfloat16" | "float16";
  /** PyTorch CPU threads (0: PyTorch's own default). Defaults to 0. */
  threads?: number;
  /** A base model the worker loads at start (its architecture is then known from `ready`). Defaults to none: the first command loads it. */
  baseModel?: string;
  /** "hf" only: llama.cpp's convert_lora_to_gguf.py, so a train command whose output ends in .gguf gets a GGUF LoRA (the PEFT folder next to it). Defaults to none (PEFT output only). */
  convertScript?: string;
  /** More command-line arguments for the script. Defaults to none. */
  extraArgs?: string[];
  /**
   * Devices one round trains on: more than 1 starts the script under PyTorch's launcher
   * (`python -m torch.distributed.run --standalone --nproc_per_node N`), one rank per device, data-parallel
   * (resources/trainers/step/spade_distributed.py); rank 0 speaks the protocol. Defaults to 1.
   */
  devices?: number;
  /** Added to the workbench's environment, after the allocator's settings (`trainerAllocatorEnv`), which it can override. Defaults to none. */
  env?: Readonly<Record<string, string>>;
  /** Defaults to the process's working directory. */
  cwd?: string;
  /** Every log line of the worker (stderr, and stdout lines that are not protocol messages). Defaults to none. */
  onLog?: (line: string) => void;
  /** How long to wait for `ready`. Defaults to 120000 ms. */
  startTimeoutMs?: number;
  /** The log tail errors carry, in characters. Defaults to 200000. */
  maxLogChars?: number;
}

export interface TrainRequest {
  round: number;
  /** The batch JSONL (resources/trainers/README.md). */
  batch: string;
  /** The base model GGUF ("gguf") or Hugging Face folder/id ("hf"). */
  baseModel: string;
  /** The adapter to continue from ("gguf": its GGUF; "hf": its PEFT folder). Defaults to null. */
  parentAdapter?: string | null;
  /** Where the adapter goes ("gguf": a .gguf file; "hf": a folder for the PEFT adapter). */
  output: string;
  /** Defaults to the trainer's defaults for every key left out. */
  hyper?: TrainerHyper;
}

export interface LogprobsRequest {
  batch: string;
  baseModel: string;
  /** Defaults to null (the base model). */
  adapter?: string | null;
  /** Where the worker writes its JSON answer. */
  output: string;
  /** The agreement check's verification mode: "llama-cpu" has the gguf trainer round activations and attention as llama.cpp's CPU backend does. Defaults to none (the trainer's exact function, which training uses). */
  rounding?: LlamaRounding;
}

export interface CommandOptions {
  /** Aborting kills the worker (cancel = kill): the call rejects with TrainerCancelledError and the worker is gone. */
  signal?: AbortSignal;
  /** Each optimiser step. Defaults to none. */
  onProgress?: (progress: TrainerProgress) => void;
  /** The recomputed-vs-recorded behaviour log-prob agreement, before training. Defaults to none. */
  onMismatch?: (mismatch: TrainerMismatch) => void;
}

export interface TrainResult {
  round: number;
  adapterPath: string;
  metrics: TrainerMetrics;
  mismatch: TrainerMismatch | null;
}

export interface LogprobsResult {
  /** Per batch line, per token: the log-prob of the token (null where mask = 0). */
  logprobs: Array<Array<number | null>>;
  mismatch: TrainerMismatch | null;
}

interface Pending {
  command: string;
  round: number | null;
  options: CommandOptions;
  messages: TrainerMessage[];
  error: string | null;
  resolve: (messages: TrainerMessage[]) => void;
  reject: (error: Error) => void;
}

/**
 * A persistent trainer worker: one Python process speaking the line protocol, the base weights
 * loaded once across rounds. Commands run one at a time, in call order. Cancelling a command
 * kills the process; create a new worker to go on.
 */
export class TrainerWorker {
  readonly trainer: TrainerKind;
  /** The base model's architecture once a model is loaded (from `ready` when `baseModel` was given). */
  architecture: string | null = null;
  private readonly child: ChildProcess;
  private readonly options: TrainerWorkerOptions;
  private log = "";
  private pending: Pending | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly exitPromise: Promise<void>;
  private ready: { resolve: () => void; reject: (error: Error) => void } | null = null;
  private cancelled = false;
  private fatal: Error | null = null;

  private constructor(options: TrainerWorkerOptions) {
    this.options = options;
    this.trainer = options.trainer ?? "gguf";
    const python = options.python ?? resolveTrainerPython();
    const script = options.script ?? resourcePath("trainers", this.trainer === "gguf" ? "train_gguf.py" : "train_lora.py");
    const args = [script, "--worker", "--device", options.device ?? "auto", "--dtype", options.dtype ?? "auto", "--threads", String(options.threads ?? 0)];
    if (options.baseModel) args.push("--base-model", options.baseModel);
    if (options.convertScript) {
      if (this.trainer !== "hf") throw new TypeError(`TrainerWorker: convertScript is for the "hf" trainer (the "gguf" trainer writes GGUF adapters itself)`);
      args.push("--convert-script", options.convertScript);
    }
    args.push(...(options.extraArgs ?? []));
    const devices = options.devices ?? 1;
    // --tee 1 --redirects 1: torch 1.13's launcher on Python 3.11 cannot parse its own default "0"; with them each
    // rank's stdout comes back prefixed "[default<rank>]:" (onStdout takes the prefix off)
    const launch = devices > 1 ? ["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", String(devices), "--tee", "1", "--redirects", "1"] : [];
    this.child = spawn(python, [...launch, ...args], {
      cwd: options.cwd,
      // the allocator's mmap threshold fixed (trainerAllocatorEnv): a round's peak is its live tensors, as the memory model predicts
      env: { ...process.env, PYTHONUNBUFFERED: "1", ...trainerAllocatorEnv, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    this.readLines(this.child.stdout!, (line) => this.onStdout(line));
    this.readLines(this.child.stderr!, (line) => this.appendLog(line));
    this.child.stdin!.on("error", () => {
      // a dead worker: the exit handler reports it
    });
    this.exitPromise = new Promise((resolve) => {
      this.child.once("error", (error) => {
        this.exited = { code: null, signal: null };
        this.fail(new TrainerWorkerError(`cannot start the trainer (${python} ${script}): ${error.message}`, null, this.log));
        resolve();
      });
      this.child.once("close", (code, signal) => {
        this.exited = { code, signal };
        this.fail(
          this.cancelled
            ? new TrainerCancelledError("the trainer was cancelled (its process was killed)", this.logTail())
            : new TrainerWorkerError(`the trainer exited (${signal ? `signal ${signal}` : `code ${code}`})${this.lastError()}`, this.pending?.round ?? null, this.logTail()),
        );
        resolve();
      });
    });
  }

  /** Starts a worker and waits for its `ready` line. */
  static async start(options: TrainerWorkerOptions = {}): Promise<TrainerWorker> {
    const worker = new TrainerWorker(options);
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        worker.ready = { resolve, reject };
        timer = setTimeout(() => reject(new TrainerWorkerError(`the trainer did not say "ready" within ${timeoutMs} ms`, null, worker.logTail())), timeoutMs);
      });
    } catch (error) {
      worker.kill();
      throw error;
    } finally {
      clearTimeout(timer);
      worker.ready = null;
    }
    return worker;
  }

  /** Resolves when the process has exited (shut down, killed or crashed). */
  waitForExit(): Promise<void> {
    return this.exitPromise;
  }

  /** Whether the process is still running. */
  get alive(): boolean {
    return this.exited === null;
  }

  /** One training round: recompute and check the behaviour log-probs, train, write the adapter. */
  async train(request: TrainRequest, options: CommandOptions = {}): Promise<TrainResult> {
    const command: TrainCommand = {
      type: "train",
      round: request.round,
      batch: request.batch,
      baseModel: request.baseModel,
      parentAdapter: request.parentAdapter ?? null,
      output: request.output,
      hyper: request.hyper ?? {},
    };
    const messages = await this.run(command, request.round, options);
    const metrics = messages.find((m) => m.type === "metrics");
    const adapter = messages.find((m) => m.type === "adapter");
    if (!metrics || !adapter) throw new TrainerWorkerError(`the trainer finished round ${request.round} without ${metrics ? "an adapter" : "metrics"} line`, request.round, this.logTail());
    return { round: request.round, adapterPath: adapter.path, metrics: metrics.metrics, mismatch: messages.find((m) => m.type === "mismatch") ?? null };
  }

  /** The trainer's log-probs of every batch line's trained tokens (with an adapter, or the base model). */
  async logprobs(request: LogprobsRequest, options: CommandOptions = {}): Promise<LogprobsResult> {
    const command: LogprobsCommand = { type: "logprobs", batch: request.batch, baseModel: request.baseModel, adapter: request.adapter ?? null, output: request.output, ...(request.rounding ? { rounding: request.rounding } : {}) };
    const messages = await this.run(command, null, options);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(request.output, "utf8"));
    } catch (error) {
      throw new TrainerWorkerError(`the trainer's logprobs output ${request.output} is unreadable: ${(error as Error).message}`, null, this.logTail());
    }
    const rows = (parsed as { logprobs?: unknown }).logprobs;
    if (!Array.isArray(rows) || !rows.every((row) => Array.isArray(row) && row.every((x) => x === null || typeof x === "number"))) {
      throw new TrainerWorkerError(`${request.output}: expected {"logprobs": [[number|null, ...], ...]}`, null, this.logTail());
    }
    return { logprobs: rows as Array<Array<number | null>>, mismatch: messages.find((m) => m.type === "mismatch") ?? null };
  }

  /**
   * The memory model's prediction of the largest round a run can give (a micro-batch of
   * `hyper.microBatchTokens`, or one sequence of `longest` tokens), loading the base model; rejects
   * with the trainer's message, naming what to lower, when it does not fit the free memory.
   */
  async memory(request: { baseModel: string; hyper?: TrainerHyper; longest: number }, options: CommandOptions = {}): Promise<TrainerMemory> {
    const command: MemoryCommand = { type: "memory", baseModel: request.baseModel, hyper: request.hyper ?? {}, longest: request.longest };
    const answer = (await this.run(command, null, options)).find((m): m is TrainerMemory => m.type === "memory");
    if (!answer) throw new TrainerWorkerError("the trainer answered the memory command without a memory line", null, this.logTail());
    return answer;
  }

  /** Asks the worker to shut down; kills it after `graceMs` (defaults to 5000 ms). */
  async dispose(graceMs = 5000): Promise<void> {
    if (this.exited) return;
    await this.queue.catch(() => undefined);
    if (this.exited) return;
    this.child.stdin!.end(JSON.stringify({ type: "shutdown" }) + "\n");
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.exitPromise;
    clearTimeout(timer);
  }

  private run(command: TrainCommand | LogprobsCommand | MemoryCommand, round: number | null, options: CommandOptions): Promise<TrainerMessage[]> {
    const next = this.queue.catch(() => undefined).then(() => this.send(command, round, options));
    this.queue = next;
    return next;
  }

  private send(command: TrainCommand | LogprobsCommand | MemoryCommand, round: number | null, options: CommandOptions): Promise<TrainerMessage[]> {
    if (this.fatal || this.exited) return Promise.reject(this.fatal ?? new TrainerWorkerError("the trainer has exited", round, this.logTail()));
    if (options.signal?.aborted) return Promise.reject(new TrainerCancelledError(`${command.type} cancelled before it started`, this.logTail()));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.cancelled = true;
        this.kill();
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => options.signal?.removeEventListener("abort", onAbort);
      this.pending = {
        command: command.type,
        round,
        options,
        messages: [],
        error: null,
        resolve: (messages) => {
          done();
          resolve(messages);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      this.child.stdin!.write(JSON.stringify(command) + "\n");
    });
  }

  private onStdout(raw: string): void {
    // a rank's line under torchrun's --tee: "[default0]:{...}"
    const line = raw.replace(/^\[default\d+\]:/, "");
    let message: TrainerMessage | null;
    try {
      message = parseTrainerMessage(line);
    } catch (error) {
      this.appendLog(line);
      this.protocolViolation((error as Error).message);
      return;
    }
    if (!message) {
      this.appendLog(line);
      return;
    }
    if (message.type === "ready") {
      if (!this.ready) return this.protocolViolation(`a second "ready" line`);
      this.architecture = message.architecture;
      this.ready.resolve();
      return;
    }
    const pending = this.pending;
    if (message.type === "error" && !pending) {
      // A worker that cannot start reports why before it exits.
      this.appendLog(`[trainer] ${message.message}`);
      return;
    }
    if (!pending) return this.protocolViolation(`a "${message.type}" line while no command was running`);
    pending.messages.push(message);
    if (message.type === "progress") pending.options.onProgress?.(message);
    else if (message.type === "mismatch") pending.options.onMismatch?.(message);
    else if (message.type === "error") {
      pending.error = message.message;
      this.appendLog(`[trainer] error: ${message.message}`);
    } else if (message.type === "done") {
      this.pending = null;
      if (pending.error !== null) pending.reject(new TrainerWorkerError(pending.error, pending.round, this.logTail()));
      else pending.resolve(pending.messages);
    }
  }

  private protocolViolation(what: string): void {
    this.fail(new TrainerWorkerError(`the trainer broke the line protocol: ${what}`, this.pending?.round ?? null, this.logTail()));
    this.kill();
  }

  private fail(error: Error): void {
    this.fatal ??= error;
    this.ready?.reject(error);
    const pending = this.pending;
    this.pending = null;
    pending?.reject(error);
  }

  private kill(): void {
    if (this.exited) return;
    try {
      if (process.platform !== "win32" && this.child.pid !== undefined) process.kill(-this.child.pid, "SIGKILL");
      else this.child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }

  private lastError(): string {
    const match = /\[trainer\] (.*)\n$/.exec(this.log) ?? /([^\n]+)\n$/.exec(this.log);
    return match ? `: ${match[1]}` : "";
  }

  private appendLog(line: string): void {
    const max = this.options.maxLogChars ?? 200_000;
    this.log += line + "\n";
    if (this.log.length > max * 2) this.log = this.log.slice(-max);
    this.options.onLog?.(line);
  }

  private logTail(): string {
    const max = this.options.maxLogChars ?? 200_000;
    return this.log.length > max ? this.log.slice(-max) : this.log;
  }

  private readLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
    let rest = "";
    stream.on("data", (chunk: Buffer) => {
      rest += chunk.toString("utf8");
      const lines = rest.split(/\r?\n/);
      rest = lines.pop() ?? "";
      for (const line of lines) onLine(line);
    });
    stream.on("end", () => {
      if (rest) onLine(rest);
      rest = "";
    });
  }
}
