import type { ResetResult, StepResult } from "../../shared/environment.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import type { LibraryWorker } from "./LibraryWorker.js";

/** A library problem being played: the same calls the sandbox answers, on a library worker held for the session. */
export class LibrarySession implements EnvSession {
  readonly kind = "text" as const;
  readonly tools = null;
  private closed = false;

  constructor(
    readonly className: string,
    readonly framing: "game" | "problem",
    private readonly worker: LibraryWorker,
    private readonly stepTimeoutMs: number,
    private readonly release: (worker: LibraryWorker) => void,
  ) {}

  async reset(seed: number): Promise<ResetResult> {
    const answer = await this.worker.call("reset", { seed }, this.stepTimeoutMs);
    return { observation: String(answer.observation ?? ""), info: (answer.info ?? {}) as ResetResult["info"] };
  }

  async step(action: string): Promise<StepResult> {
    const answer = await this.worker.call("step", { action }, this.stepTimeoutMs);
    return {
      observation: String(answer.observation ?? ""),
      reward: Number(answer.reward),
      terminated: answer.terminated === true,
      truncated: answer.truncated === true,
      info: (answer.info ?? {}) as StepResult["info"],
    };
  }

  async hint(): Promise<string | null> {
    return null;
  }

  async solution(): Promise<string> {
    return String((await this.worker.call("solution", {}, this.stepTimeoutMs)).solution ?? "");
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.worker.alive) await this.worker.call("close", {}, this.stepTimeoutMs).catch(() => undefined);
    this.release(this.worker);
  }
}
