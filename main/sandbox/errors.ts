// Errors of the sandboxed environment runtime. The first five come from the sandbox itself
// (the process was killed or died); the last two from the environment's code.

/** A call did not answer within its deadline; the sandbox process was killed and is replaced. */
export class SandboxTimeoutError extends Error {
  override readonly name = "SandboxTimeoutError";
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
  ) {
    super(`${operation}: timeout, no answer within ${timeoutMs} ms; the sandbox was killed and replaced`);
  }
}

/** The sandbox went over its memory limit (or Python ran out of memory). */
export class SandboxMemoryError extends Error {
  override readonly name = "SandboxMemoryError";
  constructor(
    readonly operation: string,
    detail: string,
  ) {
    super(`${operation}: memory limit exceeded, ${detail}`);
  }
}

/** The sandbox process died or could not start for a reason other than a timeout or memory. */
export class SandboxCrashedError extends Error {
  override readonly name: string = "SandboxCrashedError";
  constructor(
    readonly operation: string,
    detail: string,
  ) {
    super(`${operation}: the sandbox crashed, ${detail}`);
  }
}

/**
 * A play that shared its sandbox process with sibling plays of the same game lost it because of
 * a sibling: the process was ended (a sibling's time-out, memory, protocol violation or crash), or
 * a sibling changed state outside the interpreter's memory, so this play's parked state can no
 * longer be put back exactly. Not the play's own code: `neverRan` says whether the failed request
 * had reached the child (an open that never ran is opened again elsewhere).
 */
export class SandboxSiblingError extends SandboxCrashedError {
  override readonly name = "SandboxSiblingError";
  constructor(
    operation: string,
    detail: string,
    readonly neverRan: boolean,
  ) {
    super(operation, `a sibling play of the same game in this sandbox process ${detail}`);
  }
}

/**
 * The child sent something outside the protocol: malformed, oversized, unexpected or
 * out-of-sequence data. The child is killed; the engine goes on.
 */
export class SandboxProtocolError extends Error {
  override readonly name = "SandboxProtocolError";
  constructor(
    readonly operation: string,
    detail: string,
  ) {
    super(`${operation}: sandbox protocol violation: ${detail}; the sandbox was killed`);
  }
}

/** The environment's code raised a Python exception. */
export class EnvironmentCodeError extends Error {
  override readonly name = "EnvironmentCodeError";
  /** Where `open` failed: "compile", "execute", "construct" or "get_tools". */
  stage?: string;
  /** The `*Env` class, when `open` got as far as finding it. */
  className?: string;
  constructor(
    readonly operation: string,
    /** The Python exception, e.g. `ZeroDivisionError: division by zero`. */
    readonly exception: string,
    /** The Python traceback, limited to the environment's own frames where possible. */
    readonly traceback: string,
    /** The line in the environment's code where it was raised, when known. */
    readonly line?: number,
  ) {
    super(`${operation} raised ${exception}${line === undefined ? "" : ` (line ${line} of the environment)`}`);
  }
}

/** The environment broke the SPADE contract: a wrong return type, no `*Env` class, ... */
export class EnvironmentContractError extends Error {
  override readonly name = "EnvironmentContractError";
  /** Where `open` failed: "find_class" or "get_tools". */
  stage?: string;
  /** The `*Env` class, when `open` got as far as finding it. */
  className?: string;
  constructor(
    readonly operation: string,
    detail: string,
  ) {
    super(detail);
  }
}
