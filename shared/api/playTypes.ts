// Manual play: a person types actions into an environment running in the sandbox.
import type { JsonObject, ToolSchema } from "../environment.js";

export interface PlayStart {
  sessionId: string;
  className: string;
  observation: string;
  info: JsonObject;
  /** "tool" for a tool-use environment (actions are tool calls or an answer); absent means "text". */
  kind?: "text" | "tool";
  /** A tool-use environment's tools (OpenAI function schemas); absent or null otherwise. */
  tools?: ToolSchema[] | null;
}

export interface PlayStepResult {
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: JsonObject;
  /** SPADE's episode return once the episode ended, else null. */
  episodeReturn: number | null;
}
