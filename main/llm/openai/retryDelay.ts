/**
 * How long to wait before retry number `attempt` (0-based): the server's Retry-After (seconds or an
 * HTTP date) when given, else `baseMs * 2^attempt` with up to 10% jitter; never more than `maxMs`.
 */
export function retryDelay(attempt: number, baseMs: number, retryAfter: string | null, maxMs = 60_000, now = Date.now()): number {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - now;
    if (Number.isFinite(ms)) return Math.min(maxMs, Math.max(0, ms));
  }
  const backoff = baseMs * 2 ** attempt;
  return Math.min(maxMs, backoff + Math.random() * 0.1 * backoff);
}
