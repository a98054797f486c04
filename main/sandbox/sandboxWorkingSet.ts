/**
 * The sandbox processes a run's rollouts keep busy, started when its pool is created
 * (`SandboxPool`'s `initialProcesses`) so that no rollout pays for starts while plays run: one per
 * game of a rollout (a game never shares a process with another), and at least enough for the
 * plays in flight at `playsPerProcess` plays per process. The pool lowers it to its capacity.
 */
export function sandboxWorkingSet(config: { envsPerIteration: number; sandbox: { playsPerProcess: number } }, playsInFlight: number): number {
  return Math.max(config.envsPerIteration, Math.ceil(playsInFlight / Math.max(1, config.sandbox.playsPerProcess)));
}
