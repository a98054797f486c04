/**
 * The moments of a play, as the engine passes them: "started" (its unit of work started), "opening" (it asks
 * the sandbox pool for a session), "opened", "observed" (reset answered: the first observation is
 * ready), "asking" (a request goes to the backend, which may hold it until a slot is free),
 * "answered", "stepped" (the environment answered the action), "closed" (the session was given
 * back) and "stored" (the episode's transaction committed).
 */
export type PlayMark = "started" | "opening" | "opened" | "observed" | "asking" | "answered" | "stepped" | "closed" | "stored";

/** Receives a play's moments: `play` names it (its routing key), `at` is `performance.now()`. Benchmarks build timelines from them. */
export type PlayTrace = (play: string, mark: PlayMark, at: number) => void;

/** The name a play goes by in a trace and in its requests' routing key. */
export function playKey(seed: number, playIndex: number, hinted: boolean, canary: boolean): string {
  return `spade-${seed}-${playIndex}${hinted ? "-hinted" : ""}${canary ? "-canary" : ""}`;
}
