import { SandboxMemoryError, SandboxProtocolError, SandboxTimeoutError } from "./errors.js";
import type { SandboxPool } from "./SandboxPool.js";

export interface RepairFStringBracesOptions {
  /** Deadline of the repair, the wait for a sandbox process included, in ms. Defaults to 10000. */
  timeoutMs?: number;
  /** Told when the repair could not finish (the code then comes back unchanged). Defaults to none. */
  onFailure?: (error: BraceRepairError) => void;
}

/** Why a brace repair left the code unchanged without finishing. */
export type BraceRepairFailure = "timeout" | "memory" | "crashed" | "protocol" | "parser";

/** The brace repair did not finish; the code was kept as the designer wrote it. */
export class BraceRepairError extends Error {
  override readonly name = "BraceRepairError";
  constructor(
    /** "timeout": no answer within the deadline; "memory", "crashed", "protocol": the sandbox process died or misbehaved (it was replaced); "parser": Python's parser failed other than with a syntax error. */
    readonly reason: BraceRepairFailure,
    detail: string,
  ) {
    super(`f-string brace repair skipped (${reason}): ${detail}; the code is kept unchanged`);
  }
}

/**
 * The SPADE reference's f-string brace repair, run in the sandbox: while the code does not parse,
 * the `{...}` groups of the line the syntax error points at whose inside is not a Python
 * expression are doubled (`\boxed{<action>}` in an f-string becomes `\boxed{{<action>}}`), up to
 * 20 lines. The code is only parsed, never run, by the same confined processes that run
 * environments (no host interpreter). A never-used process that repairs code then serves that
 * code's validation. When the repair times out, the process dies or the parser fails, the code
 * comes back unchanged and `onFailure` is told; this never throws for the code's sake.
 */
export async function repairFStringBraces(pool: SandboxPool, code: string, options: RepairFStringBracesOptions = {}): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new RangeError(`repairFStringBraces option timeoutMs must be a whole number of at least 1, got ${timeoutMs}`);
  try {
    const result = await pool.repairBraces(code, timeoutMs);
    if (result.failure !== null) options.onFailure?.(new BraceRepairError("parser", `Python's parser raised ${result.failure}`));
    return result.code ?? code;
  } catch (error) {
    const reason: BraceRepairFailure =
      error instanceof SandboxTimeoutError ? "timeout" : error instanceof SandboxMemoryError ? "memory" : error instanceof SandboxProtocolError ? "protocol" : "crashed";
    options.onFailure?.(new BraceRepairError(reason, error instanceof Error ? error.message : String(error)));
    return code;
  }
}
