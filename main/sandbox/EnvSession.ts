import type { ResetResult, StepResult, ToolSchema } from "../../shared/environment.js";

/** An environment instance living in a sandbox process. Every call has a deadline. */
export interface EnvSession {
  readonly className: string;
  /** "tool" when the class subclasses ToolUseBaseEnv. */
  readonly kind: "text" | "tool";
  /** The tool schemas of a tool-use environment, else null. */
  readonly tools: ToolSchema[] | null;
  /** How the agent's first message frames the first observation: a "game" (generated environments), or a "problem" (a library's single-turn problem, RLVE). Defaults to "game". */
  readonly framing?: "game" | "problem";
  reset(seed: number): Promise<ResetResult>;
  step(action: string): Promise<StepResult>;
  /** The environment's own `hint()`, or null when it defines none. */
  hint(): Promise<string | null>;
  solution(): Promise<string>;
  /** Releases the sandbox; safe to call twice. */
  close(): Promise<void>;
}
