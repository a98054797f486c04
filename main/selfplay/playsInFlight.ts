/**
 * Plays in flight at once for a backend that serves `parallelism` requests at once: that many, and
 * half as many again getting ready meanwhile (a session opened, the game reset, the first request
 * waiting at the backend), so that when a request ends, another is already waiting for its slot
 * instead of the slot idling through a play's end (step, store, close) and the next one's start
 * (open, reset). The backend still lets only `parallelism` requests through.
 */
export function playsInFlight(parallelism: number): number {
  const slots = Math.max(1, parallelism);
  return slots + Math.ceil(slots / 2);
}
