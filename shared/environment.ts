// The SPADE environment contract as data: what reset()/step() return and what the validator and
// the `spade env` commands report. Shapes here are CLI contracts: extend only compatibly.

export type JsonObject = Record<string, unknown>;

/** What `reset(seed)` returns: the first observation and an info dict. */
export interface ResetResult {
  observation: string;
  info: JsonObject;
}

/**
 * What `step(action)` returns: Gymnasium's 5-tuple. `terminated` means the task reached an end
 * state (won or lost); `truncated` means an outside cut-off (a turn limit) stopped it.
 */
export interface StepResult {
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: JsonObject;
}

/** An OpenAI-format tool schema declared by a tool-use environment's `get_tools()`. */
export interface ToolSchema {
  type: "function";
  function: { name: string; description?: string; parameters?: JsonObject };
}

/** One named check of the validator, like a Gymnasium `check_env` assertion. */
export interface ValidationCheck {
  name: string;
  ok: boolean;
  detail: string;
  /** The line of the environment's code the failure points at, when known (editor markers). */
  line?: number;
  /**
   * True on a failed check that does not make the game invalid: one of this project's extra checks
   * (not the reference's rule) outside `validator.strict`. Shown as a warning, never as a failure.
   */
  warning?: boolean;
}

/** The failed checks that are only warnings (see `ValidationCheck.warning`). */
export function validationWarnings(report: { checks: readonly ValidationCheck[] }): ValidationCheck[] {
  return report.checks.filter((check) => !check.ok && check.warning === true);
}

/** `spade env validate --json` output. */
export interface ValidationReport {
  valid: boolean;
  className: string | null;
  checks: ValidationCheck[];
  /** The first failing check's message (warnings aside); contains `timeout` or `memory` for those failures. */
  error: string | null;
  durationMs: number;
  /**
   * Whether `solution()`, played from `reset(seed=42)`, solves the game (the last step terminates
   * with reward 1): true, false, or absent when validation did not get that far. A record, not a
   * check: an environment's own hint is used only when this is true.
   */
  solutionPlay?: { solves: boolean; detail: string };
}

export interface PlayedStep extends StepResult {
  action: string;
}

/** `spade env play --json` output. */
export interface PlayReport {
  className: string;
  seed: number;
  reset: ResetResult;
  steps: PlayedStep[];
  return: number;
  error: string | null;
}

/**
 * SPADE's episode rule: the last step's reward clipped to [-1, 1], counted only if the episode
 * terminated; a truncated or unfinished episode returns 0.
 */
export function episodeReturn(lastStep: Pick<StepResult, "reward" | "terminated"> | undefined): number {
  if (!lastStep || !lastStep.terminated || !Number.isFinite(lastStep.reward)) return 0;
  return Math.max(-1, Math.min(1, lastStep.reward));
}

/** The hint is appended to the first observation only, in SPADE's exact format. */
export function withHint(observation: string, hint: string): string {
  return `${observation}\n\nHINT: ${hint}`;
}
