// Who may talk to the server: only pages it served itself (Origin, Host) holding this start's token.
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Constant-time token comparison. */
export function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token from `Authorization: Bearer <token>`, else from the `token` query parameter. */
export function requestToken(request: IncomingMessage, url: URL, allowQuery: boolean): string | null {
  const header = request.headers.authorization;
  if (header?.startsWith("Bearer ")) return header.slice("Bearer ".length).trim();
  return allowQuery ? url.searchParams.get("token") : null;
}

/**
 * A request from another site (Origin present and not ours) or addressed to another host name
 * (DNS rebinding: Host is not 127.0.0.1/localhost with our port) is refused.
 */
export function foreignRequestReason(request: IncomingMessage, port: number): string | null {
  const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  const host = request.headers.host;
  if (host !== undefined && !allowedHosts.includes(host.toLowerCase())) return `host ${host} is not this server`;
  const origin = request.headers.origin;
  if (origin !== undefined && !allowedHosts.map((h) => `http://${h}`).includes(origin.toLowerCase())) {
    return `origin ${origin} is not this server`;
  }
  return null;
}
