// What `spade serve` remembers next to a workspace so bookmarks survive restarts: the last port
// and the generated token. Kept in `<workspace>.serve.json`, readable by the owner only.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";

export interface ServerState {
  /** The port the last start listened on. */
  port?: number;
  /** The token the last start generated (a token given by --token / SPADE_TOKEN is not stored). */
  token?: string;
}

/** The file holding a workspace's server state. */
export function serverStatePath(dbPath: string): string {
  return `${dbPath}.serve.json`;
}

/** The remembered state, or {} when there is none or it is unreadable (then a new one is made). */
export function readServerState(dbPath: string): ServerState {
  const path = serverStatePath(dbPath);
  if (!existsSync(path)) return {};
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    const state: ServerState = {};
    if (Number.isInteger(value.port) && (value.port as number) > 0 && (value.port as number) <= 65535) state.port = value.port as number;
    if (typeof value.token === "string" && isValidToken(value.token)) state.token = value.token;
    return state;
  } catch {
    return {};
  }
}

export function writeServerState(dbPath: string, state: ServerState): void {
  const path = serverStatePath(dbPath);
  writeFileSync(path, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** A token goes into URLs: 16 to 256 URL-safe characters. */
export function isValidToken(token: string): boolean {
  return /^[A-Za-z0-9._~-]{16,256}$/.test(token);
}
