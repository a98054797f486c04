import type { ValidationCheck, ValidationReport } from "../../shared/environment.js";
import { EnvironmentCodeError, EnvironmentContractError, SandboxCrashedError, SandboxMemoryError, SandboxProtocolError, SandboxTimeoutError } from "../sandbox/errors.js";

/** Raised inside a check to fail it with an exact message. */
export class CheckFailure extends Error {
  override readonly name = "CheckFailure";
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

/** True for errors after which the sandbox session is gone (killed or crashed). */
export function endsSession(error: unknown): boolean {
  return error instanceof SandboxTimeoutError || error instanceof SandboxMemoryError || error instanceof SandboxCrashedError || error instanceof SandboxProtocolError;
}

/** The message a failed check shows for an error thrown by the environment or the sandbox. */
export function describeError(error: unknown): { detail: string; line?: number } {
  if (error instanceof CheckFailure) return { detail: error.message, ...(error.line === undefined ? {} : { line: error.line }) };
  if (error instanceof EnvironmentCodeError) return { detail: error.message, ...(error.line === undefined ? {} : { line: error.line }) };
  if (error instanceof EnvironmentContractError) return { detail: `${error.operation}: ${error.message}` };
  if (error instanceof Error) return { detail: error.message };
  return { detail: String(error) };
}

export interface ValidationRunOptions {
  /** Names of this project's extra checks: a failure there is a warning unless `strict`. Defaults to none. */
  extraChecks?: ReadonlySet<string>;
  /** The deviation `validator.strict`: extra checks invalidate a game too. Defaults to false. */
  strict?: boolean;
}

/**
 * The record of one validation: named checks in the order they ran. A failed check of the
 * reference's rule ends the validation and makes the game invalid; a failed extra check is kept as
 * a warning (or, with `strict`, is a failure like the others).
 */
export class ValidationRun {
  readonly checks: ValidationCheck[] = [];
  className: string | null = null;
  /** Whether the environment's own solution solves it, once played. */
  solutionPlay: ValidationReport["solutionPlay"] = undefined;
  private readonly started = performance.now();
  private readonly extraChecks: ReadonlySet<string>;
  private readonly strict: boolean;

  constructor(options: ValidationRunOptions = {}) {
    this.extraChecks = options.extraChecks ?? new Set();
    this.strict = options.strict ?? false;
  }

  /** True once a check failed that makes the game invalid (warnings do not). */
  get failed(): boolean {
    return this.checks.some((check) => !check.ok && !check.warning);
  }

  pass(name: string, detail: string): void {
    this.checks.push({ name, ok: true, detail });
  }

  fail(name: string, detail: string, line?: number): void {
    const warning = !this.strict && this.extraChecks.has(name);
    this.checks.push({ name, ok: false, detail, ...(line === undefined ? {} : { line }), ...(warning ? { warning } : {}) });
  }

  /** Runs one check: `body` returns the pass message or throws; a throw fails the check (or warns). Returns whether it passed. */
  async check(name: string, body: () => Promise<string>): Promise<boolean> {
    try {
      this.pass(name, await body());
      return true;
    } catch (error) {
      const { detail, line } = describeError(error);
      this.fail(name, detail, line);
      return false;
    }
  }

  report(): ValidationReport {
    const firstFailure = this.checks.find((check) => !check.ok && !check.warning);
    return {
      valid: this.checks.length > 0 && !firstFailure,
      className: this.className,
      checks: this.checks,
      error: firstFailure ? firstFailure.detail : null,
      durationMs: Math.round(performance.now() - this.started),
      ...(this.solutionPlay ? { solutionPlay: this.solutionPlay } : {}),
    };
  }
}
