// Manual play: a person types actions into an environment running in the sandbox.
import type { JsonObject } from "../environment.js";

export interface PlayStart {
  sessionId: string;
  className: string;
  observation: string;
  info: JsonObject;
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
