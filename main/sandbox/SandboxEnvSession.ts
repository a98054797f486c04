import type { JsonObject, ResetResult, StepResult, ToolSchema } from "../../shared/environment.js";
import type { EnvSession } from "./EnvSession.js";
import { EnvironmentCodeError, EnvironmentContractError, SandboxCrashedError, SandboxMemoryError } from "./errors.js";
import { decodeReward, type ChildReply, type HarnessError, type HarnessResponse, type OpenResult, type RawStepResult } from "./protocol.js";
import type { SandboxProcess } from "./SandboxProcess.js";

export interface SessionLimits {
  stepTimeoutMs: number;
  callTimeoutMs: number;
  maxPrintChars: number;
  /** Epoch ms after which every call times out (an overall deadline), or null. */
  deadlineAt: number | null;
}

/** The deadline of one call: its own limit, shortened by an overall deadline. */
export function callTimeout(limitMs: number, deadlineAt: number | null): number {
  return deadlineAt === null ? limitMs : Math.max(1, Math.min(limitMs, deadlineAt - Date.now()));
}

/** Turns the harness's description of a failure into the runtime's error classes. */
export function harnessErrorToException(error: HarnessError): Error {
  const operation = `${error.op}()`;
  if (error.kind === "memory") return new SandboxMemoryError(operation, `Python ran out of memory (${error.exception})`);
  const exception =
    error.kind === "contract"
      ? new EnvironmentContractError(operation, error.exception)
      : new EnvironmentCodeError(operation, error.exception, error.traceback, error.line ?? undefined);
  if (typeof error.stage === "string") exception.stage = error.stage;
  if (typeof error.className === "string") exception.className = error.className;
  return exception;
}

/** Parses the harness's JSON answer in a child reply; malformed answers mean a broken sandbox. */
export function parseHarnessReply<T>(reply: ChildReply, operation: string): HarnessResponse<T> {
  try {
    const response = JSON.parse(String(reply.json)) as HarnessResponse<T>;
    if (typeof response !== "object" || response === null || typeof response.ok !== "boolean") throw new Error("not a harness response");
    return response;
  } catch (error) {
    throw new SandboxCrashedError(operation, `the sandbox answered with malformed data (${(error as Error).message})`);
  }
}

/**
 * An environment instance living in a sandbox process (see EnvSession). Holds its process until
 * `close()`; a call that times out or overruns memory kills the process and ends the session.
 */
export class SandboxEnvSession implements EnvSession {
  readonly className: string;
  readonly kind: "text" | "tool";
  readonly tools: ToolSchema[] | null;
  /** True when the session got a fresh interpreter rather than one reused from the same code. */
  readonly freshInterpreter: boolean;
  private printedText = "";
  private closed = false;
  private ended: Error | null = null;

  constructor(
    private readonly process: SandboxProcess,
    opened: OpenResult,
    fresh: boolean,
    private readonly limits: SessionLimits,
    private readonly release: (process: SandboxProcess, keptInterpreter: boolean) => void,
  ) {
    this.className = String(opened.className);
    this.kind = opened.kind === "tool" ? "tool" : "text";
    this.tools = Array.isArray(opened.tools) ? opened.tools : null;
    this.freshInterpreter = fresh;
  }

  /** What the environment printed so far (capped; the rest is counted in a note). */
  printed(): string {
    return this.printedText;
  }

  /** Adds printed text from a reply, keeping at most `maxPrintChars`. */
  addPrinted(text: string): void {
    if (!text) return;
    const room = this.limits.maxPrintChars - this.printedText.length;
    if (room > 0) this.printedText += text.slice(0, room);
  }

  async reset(seed: number): Promise<ResetResult> {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`reset(seed) expects a whole number, got ${seed}`);
    const result = await this.call<{ observation: string; info: JsonObject }>({ op: "reset", seed }, `reset(seed=${seed})`, this.limits.callTimeoutMs);
    return { observation: String(result.observation), info: asObject(result.info) };
  }

  async step(action: string): Promise<StepResult> {
    const result = await this.call<RawStepResult>({ op: "step", action: String(action) }, "step()", this.limits.stepTimeoutMs);
    return {
      observation: String(result.observation),
      reward: decodeReward(result.reward),
      terminated: result.terminated === true,
      truncated: result.truncated === true,
      info: asObject(result.info),
    };
  }

  async hint(): Promise<string | null> {
    const result = await this.call<{ hint: string | null }>({ op: "hint" }, "hint()", this.limits.callTimeoutMs);
    return typeof result.hint === "string" ? result.hint : null;
  }

  async solution(): Promise<string> {
    const result = await this.call<{ solution: string }>({ op: "solution" }, "solution()", this.limits.callTimeoutMs);
    return String(result.solution);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ended || !this.process.alive) {
      this.release(this.process, false);
      return;
    }
    try {
      const reply = await this.process.request({ op: "close" }, "close()", callTimeout(this.limits.callTimeoutMs, this.limits.deadlineAt));
      const response = parseHarnessReply<unknown>(reply, "close()");
      this.addPrinted(response.printed);
      this.release(this.process, reply.kept === true);
    } catch {
      // The process was killed (timeout, memory) or broke: the pool replaces it.
      this.process.kill();
      this.release(this.process, false);
    }
  }

  private async call<T>(request: Record<string, unknown>, operation: string, timeoutMs: number): Promise<T> {
    if (this.closed) throw new SandboxCrashedError(operation, "the session is closed");
    if (this.ended) throw new SandboxCrashedError(operation, `the session ended earlier: ${this.ended.message}`);
    let reply: ChildReply;
    try {
      reply = await this.process.request({ op: "call", json: JSON.stringify(request) }, operation, callTimeout(timeoutMs, this.limits.deadlineAt));
    } catch (error) {
      this.ended = error as Error;
      throw error;
    }
    this.addPrinted(reply.output ?? "");
    const response = parseHarnessReply<T>(reply, operation);
    this.addPrinted(response.printed);
    if (!response.ok) {
      const exception = harnessErrorToException(response.error);
      if (exception instanceof SandboxMemoryError) {
        // Python's heap is exhausted: this interpreter cannot be trusted to go on.
        this.ended = exception;
        this.process.kill();
      }
      throw exception;
    }
    return response.result;
  }
}

function asObject(value: unknown): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
}
