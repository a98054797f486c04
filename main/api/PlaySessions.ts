// Manual play sessions: an environment opened in the sandbox, driven by a person's actions.
import { randomUUID } from "node:crypto";
import type { PlayStart, PlayStepResult } from "../../shared/api/playTypes.js";
import { episodeReturn } from "../../shared/environment.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { NotFoundError } from "./NotFoundError.js";

export interface PlaySessionsOptions {
  /** Sessions open at once; the least recently used one closes beyond it. Defaults to 4. */
  maxSessions?: number;
  /** A session untouched this long closes. Defaults to 10 minutes. */
  idleMs?: number;
}

interface Entry {
  session: EnvSession;
  lastUsed: number;
  ended: boolean;
}

export class PlaySessions {
  readonly #sessions = new Map<string, Entry>();
  readonly #maxSessions: number;
  readonly #idleMs: number;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: PlaySessionsOptions = {}) {
    this.#maxSessions = options.maxSessions ?? 4;
    this.#idleMs = options.idleMs ?? 10 * 60_000;
    this.#sweeper = setInterval(() => void this.#closeIdle(), Math.min(60_000, this.#idleMs)).unref();
  }

  async start(session: EnvSession, seed: number): Promise<PlayStart> {
    let reset;
    try {
      reset = await session.reset(seed);
    } catch (error) {
      await session.close();
      throw error;
    }
    const sessionId = randomUUID();
    this.#sessions.set(sessionId, { session, lastUsed: Date.now(), ended: false });
    await this.#closeOverflow();
    return { sessionId, className: session.className, observation: reset.observation, info: reset.info, kind: session.kind, tools: session.tools };
  }

  async step(sessionId: string, action: string): Promise<PlayStepResult> {
    const entry = this.#get(sessionId);
    if (entry.ended) throw new NotFoundError(`play session ${sessionId} has ended; start a new one`);
    entry.lastUsed = Date.now();
    const result = await entry.session.step(action);
    const done = result.terminated || result.truncated;
    if (done) entry.ended = true;
    return { ...result, episodeReturn: done ? episodeReturn(result) : null };
  }

  async end(sessionId: string): Promise<boolean> {
    const entry = this.#sessions.get(sessionId);
    if (!entry) return false;
    this.#sessions.delete(sessionId);
    await entry.session.close();
    return true;
  }

  get size(): number {
    return this.#sessions.size;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    const entries = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(entries.map((entry) => entry.session.close()));
  }

  #get(sessionId: string): Entry {
    const entry = this.#sessions.get(sessionId);
    if (!entry) throw new NotFoundError(`no play session ${sessionId} (it ended or was closed after being idle)`);
    return entry;
  }

  async #closeOverflow(): Promise<void> {
    while (this.#sessions.size > this.#maxSessions) {
      const oldest = [...this.#sessions].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (!oldest) break;
      await this.end(oldest[0]);
    }
  }

  async #closeIdle(): Promise<void> {
    const now = Date.now();
    for (const [id, entry] of [...this.#sessions]) if (now - entry.lastUsed > this.#idleMs) await this.end(id);
  }
}
