/**
 * Server slots one core keeps busy with plays: a play of a short game costs the engine and its
 * sandbox child about 12 ms of CPU (the `regeneration` bench), so a core feeds about 16 requests
 * that each take 200 ms or more.
 */
export const PLAYS_PER_CORE = 16;

/**
 * Games validated at once, by default, for a machine with `cores` and a backend serving `slots`
 * requests at once: the cores, while they can also feed the slots with plays (at most
 * PLAYS_PER_CORE slots a core), so the first games designed together are valid soon and their
 * plays fill the server while the rest validate (measured best at 16 in flight on 2 cores; one more
 * held the first games back); else no limit (Number.MAX_SAFE_INTEGER): when plays alone keep every
 * core busy, a game held back is validated no sooner (its checks wait on the plays' CPU as much),
 * and games validated together spread the sandbox processes over all of them at once.
 */
export function validationsAtOnce(cores: number, slots: number): number {
  const atLeastOne = Math.max(1, cores);
  return slots <= PLAYS_PER_CORE * atLeastOne ? atLeastOne : Number.MAX_SAFE_INTEGER;
}
