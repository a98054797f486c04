import type { EnvSession } from "../sandbox/EnvSession.js";

export interface EnvironmentSandbox {
  open(code: string): Promise<EnvSession>;
  dispose(): Promise<void>;
}

export interface EnvironmentSandboxOptions {
  /** Deadline of one `step()`. Defaults to 30000 ms (SPADE's limit). */
  stepTimeoutMs?: number;
}

/** A sandbox pool (loaded on first use) for playing held-out environments (untrusted code, like the designer's). */
export async function openEnvironmentSandbox(options: EnvironmentSandboxOptions = {}): Promise<EnvironmentSandbox> {
  const stepTimeoutMs = options.stepTimeoutMs ?? 30_000;
  // Loaded on demand: question suites never start the Python sandbox.
  const { SandboxPool } = await import("../sandbox/SandboxPool.js");
  const pool = await SandboxPool.create({ stepTimeoutMs });
  return {
    open: (code) => pool.open(code, { stepTimeoutMs }),
    dispose: () => pool.dispose(),
  };
}
