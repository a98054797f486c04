import type { JsonObject, ResetResult, StepResult, ToolSchema } from "../../shared/environment.js";
import { capText, TEXT_CAPS } from "./capText.js";
import type { EnvSession } from "./EnvSession.js";
import { EnvironmentCodeError, EnvironmentContractError, SandboxCrashedError, SandboxMemoryError, SandboxProtocolError, SandboxSiblingError } from "./errors.js";
import type { ChildReply, HarnessError, HarnessResponse, OpenResult } from "./protocol.js";
import type { SandboxProcess } from "./SandboxProcess.js";

export interface SessionLimits {
  stepTimeoutMs: number;
  callTimeoutMs: number;
  maxPrintChars: number;
  /** Observations longer than this are cut by the engine too (whatever the child claims). */
  maxObservationChars: number;
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
  if (error.kind === "memory") return new SandboxMemoryError(operation, `Python ran out of memory (${capText(error.exception, TEXT_CAPS.exception, "exception message")})`);
  const message = capText(error.exception, TEXT_CAPS.exception, "exception message");
  const exception =
    error.kind === "contract"
      ? new EnvironmentContractError(operation, message)
      : new EnvironmentCodeError(operation, message, capText(error.traceback, TEXT_CAPS.traceback, "traceback"), error.line ?? undefined);
  if (typeof error.stage === "string") exception.stage = error.stage;
  if (typeof error.className === "string") exception.className = capText(error.className, TEXT_CAPS.className, "class name");
  return exception;
}

const HARNESS_ERROR_KINDS = new Set(["code", "contract", "memory"]);

function isString(value: unknown): value is string {
  return typeof value === "string";
}

/** What is wrong with a harness error object, or null. */
function harnessErrorProblem(error: unknown): string | null {
  if (typeof error !== "object" || error === null || Array.isArray(error)) return "error is not an object";
  const e = error as Record<string, unknown>;
  if (!HARNESS_ERROR_KINDS.has(e.kind as string)) return "error.kind is not code, contract or memory";
  if (!isString(e.exception) || !isString(e.traceback)) return "error.exception or error.traceback is not a string";
  if (!(e.op === null || isString(e.op))) return "error.op is not a string";
  for (const key of ["stage", "className"]) if (!(e[key] === undefined || e[key] === null || isString(e[key]))) return `error.${key} is not a string`;
  if (!(e.line === null || e.line === undefined || (Number.isSafeInteger(e.line) && (e.line as number) > 0))) return "error.line is not a positive whole number";
  return null;
}

/**
 * Checks the harness's answer inside a child reply: its envelope here, its result by the caller
 * (each operation's own checker). A malformed answer is a protocol violation: the process is
 * killed by the caller.
 */
export function parseHarnessReply<T>(reply: ChildReply, operation: string): HarnessResponse<T> {
  const response = reply.reply as Record<string, unknown> | undefined;
  const fail = (detail: string) => new SandboxProtocolError(operation, `the harness answer ${detail}`);
  if (!response) throw fail("is missing");
  if (typeof response.ok !== "boolean") throw fail("has no ok flag");
  if (!isString(response.printed)) throw fail("has no printed text");
  if (response.ok) {
    if (!("result" in response)) throw fail("has no result");
  } else {
    const problem = harnessErrorProblem(response.error);
    if (problem) throw fail(`is malformed (${problem})`);
  }
  return response as unknown as HarnessResponse<T>;
}

/** A finite number within ±1e300 (the harness already refused NaN and infinities; a lying child is caught here). */
function checkedNumber(value: unknown, what: string, operation: string): number {
  if (typeof value !== "number") throw new SandboxProtocolError(operation, `${what} is ${value === null ? "null" : typeof value}, not a number`);
  if (!Number.isFinite(value) || Math.abs(value) > 1e300) throw new SandboxProtocolError(operation, `${what} is ${value}, not a finite number`);
  return value;
}

function checkedString(value: unknown, what: string, operation: string): string {
  if (typeof value !== "string") throw new SandboxProtocolError(operation, `${what} is not a string`);
  return value;
}

function checkedBoolean(value: unknown, what: string, operation: string): boolean {
  if (typeof value !== "boolean") throw new SandboxProtocolError(operation, `${what} is not a boolean`);
  return value;
}

function checkedObject(value: unknown, what: string, operation: string): JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new SandboxProtocolError(operation, `${what} is not an object`);
  return value as JsonObject;
}

/** The open result, checked field by field. */
export function checkedOpenResult(value: unknown): OpenResult {
  const result = checkedObject(value, "the open result", "open");
  const kind = result.kind;
  if (kind !== "text" && kind !== "tool") throw new SandboxProtocolError("open", "kind is not text or tool");
  const tools = result.tools;
  if (!(tools === null || (Array.isArray(tools) && tools.every((tool) => typeof tool === "object" && tool !== null && !Array.isArray(tool))))) {
    throw new SandboxProtocolError("open", "tools is not a list of objects");
  }
  return {
    className: capText(checkedString(result.className, "className", "open"), TEXT_CAPS.className, "class name"),
    kind,
    tools: tools as ToolSchema[] | null,
    hasHint: checkedBoolean(result.hasHint, "hasHint", "open"),
  };
}

/** How a session hands its play back: `kept` when the process can be restored for another play; `lost` when a sibling play took the process from it (the process is not this play's fault). */
export type SessionRelease = (process: SandboxProcess, play: number, outcome: { kept: boolean; lost: boolean }) => void;

/**
 * An environment instance living in a sandbox process (see EnvSession): one play of the process,
 * which may hold sibling plays of the same game beside it. Holds its play until `close()`; a call
 * that times out or overruns memory kills the process and ends the session (and its siblings,
 * each with a SandboxSiblingError naming why).
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
    private readonly play: number,
    opened: OpenResult,
    fresh: boolean,
    private readonly limits: SessionLimits,
    private readonly release: SessionRelease,
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
    const operation = `reset(seed=${seed})`;
    const result = await this.checked(operation, () => this.call<unknown>({ op: "reset", seed }, operation, this.limits.callTimeoutMs), (value) => {
      const reply = checkedObject(value, "the reset result", operation);
      return { observation: this.capObservation(checkedString(reply.observation, "observation", operation)), info: this.checkedInfo(reply.info, operation) };
    });
    return result;
  }

  async step(action: string): Promise<StepResult> {
    if (typeof action !== "string") throw new TypeError(`step(action) expects a string, got ${typeof action}`);
    return this.checked("step()", () => this.call<unknown>({ op: "step", action }, "step()", this.limits.stepTimeoutMs), (value) => {
      const reply = checkedObject(value, "the step result", "step()");
      return {
        observation: this.capObservation(checkedString(reply.observation, "observation", "step()")),
        reward: checkedNumber(reply.reward, "the reward", "step()"),
        terminated: checkedBoolean(reply.terminated, "terminated", "step()"),
        truncated: checkedBoolean(reply.truncated, "truncated", "step()"),
        info: this.checkedInfo(reply.info, "step()"),
      };
    });
  }

  async hint(): Promise<string | null> {
    return this.checked("hint()", () => this.call<unknown>({ op: "hint" }, "hint()", this.limits.callTimeoutMs), (value) => {
      const hint = checkedObject(value, "the hint result", "hint()").hint;
      return hint === null ? null : capText(checkedString(hint, "the hint", "hint()"), TEXT_CAPS.hint, "hint");
    });
  }

  async solution(): Promise<string> {
    return this.checked("solution()", () => this.call<unknown>({ op: "solution" }, "solution()", this.limits.callTimeoutMs), (value) =>
      capText(checkedString(checkedObject(value, "the solution result", "solution()").solution, "the solution", "solution()"), TEXT_CAPS.solution, "solution"),
    );
  }

  /** Runs a call and checks its result; a result that fails the check kills the process (protocol violation). */
  private async checked<T>(operation: string, call: () => Promise<unknown>, check: (value: unknown) => T): Promise<T> {
    const value = await call();
    try {
      return check(value);
    } catch (error) {
      const failure = error instanceof SandboxProtocolError ? error : new SandboxProtocolError(operation, (error as Error).message);
      this.ended = failure;
      this.process.kill({ play: this.play, reason: failure.message });
      throw failure;
    }
  }

  private capObservation(observation: string): string {
    const limit = this.limits.maxObservationChars;
    if (observation.length <= limit + 200) return observation;
    return `${observation.slice(0, limit)}\n[observation truncated: ${observation.length} characters exceed the ${limit} character limit]`;
  }

  private checkedInfo(value: unknown, operation: string): JsonObject {
    const info = checkedObject(value, "info", operation);
    const size = JSON.stringify(info).length;
    if (size > this.limits.maxObservationChars + 200) {
      throw new EnvironmentContractError(operation, `${operation}: info is ${size} characters as JSON, over the ${this.limits.maxObservationChars} character limit`);
    }
    return info;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const lost = this.ended instanceof SandboxSiblingError || this.process.siblingLoss(this.play) !== null;
    if (this.ended || !this.process.alive || lost) {
      this.release(this.process, this.play, { kept: false, lost });
      return;
    }
    try {
      const reply = await this.process.request({ op: "close", play: this.play }, "close()", this.limits.callTimeoutMs, { play: this.play, deadlineAt: this.limits.deadlineAt });
      const response = parseHarnessReply<unknown>(reply, "close()");
      this.addPrinted(response.printed);
      this.release(this.process, this.play, { kept: reply.kept === true, lost: false });
    } catch (error) {
      // The process was killed (timeout, memory) or broke: the pool replaces it. A sibling's loss is not this play's doing.
      const siblings = error instanceof SandboxSiblingError;
      if (!siblings) this.process.kill({ play: this.play, reason: `its close() failed: ${(error as Error).message}` });
      this.release(this.process, this.play, { kept: false, lost: siblings });
    }
  }

  private async call<T>(request: Record<string, unknown>, operation: string, timeoutMs: number): Promise<T> {
    if (this.closed) throw new SandboxCrashedError(operation, "the session is closed");
    if (this.ended) throw new SandboxCrashedError(operation, `the session ended earlier: ${this.ended.message}`);
    const loss = this.process.siblingLoss(this.play);
    if (loss !== null) {
      this.ended = new SandboxSiblingError(operation, loss, false);
      throw this.ended;
    }
    let reply: ChildReply;
    try {
      reply = await this.process.request({ op: "call", json: JSON.stringify(request), play: this.play }, operation, timeoutMs, { play: this.play, deadlineAt: this.limits.deadlineAt });
    } catch (error) {
      this.ended = error as Error;
      throw error;
    }
    this.addPrinted(reply.output ?? "");
    let response: HarnessResponse<T>;
    try {
      response = parseHarnessReply<T>(reply, operation);
    } catch (error) {
      this.ended = error as Error;
      this.process.kill({ play: this.play, reason: (error as Error).message });
      throw error;
    }
    this.addPrinted(response.printed);
    if (!response.ok) {
      const exception = harnessErrorToException(response.error);
      if (exception instanceof SandboxMemoryError) {
        // Python's heap is exhausted: this interpreter cannot be trusted to go on.
        this.ended = exception;
        this.process.kill({ play: this.play, reason: exception.message });
      }
      throw exception;
    }
    return response.result;
  }
}
