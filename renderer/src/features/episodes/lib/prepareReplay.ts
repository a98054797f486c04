// Turns -> what the replay shows at each step, and the reward timeline. Pure: tested alone.
import type { TurnView } from "../../../../../shared/api/episodeTypes.js";

export interface ReplayStep {
  /** 0-based position in the episode. */
  index: number;
  /** What the agent saw before acting: the last user message of its prompt, else the previous observation. */
  seen: string | null;
  reasoning: string | null;
  action: string | null;
  /** What the environment answered. */
  observation: string | null;
  reward: number | null;
  terminated: boolean;
  truncated: boolean;
  /** How the play ended at this step, or null when it went on. */
  end: StepEnd | null;
}

/**
 * An episode's end as the replay shows it: a terminated game by its outcome (won when the return
 * so far is above 0, as the win rate counts it), a truncated one with its stored stop reason
 * (`stop: length`: the reply filled its token budget).
 */
export interface StepEnd {
  label: string;
  tone: "good" | "bad" | "neutral";
}

function stepEnd(turn: TurnView, returnSoFar: number): StepEnd | null {
  if (turn.terminated) return returnSoFar > 0 ? { label: "terminated · won", tone: "good" } : { label: "terminated · lost", tone: "bad" };
  if (!turn.truncated) return null;
  const stop = turn.info?.stop;
  return { label: typeof stop === "string" ? `truncated · stop: ${stop}` : "truncated", tone: "neutral" };
}

export interface TimelinePoint {
  step: number;
  reward: number | null;
  /** The step's reward when the episode ended there, else null (drawn as a marker). */
  end: number | null;
}

function lastUserMessage(turn: TurnView): string | null {
  if (!turn.messages) return null;
  for (let i = turn.messages.length - 1; i >= 0; i--) {
    const message = turn.messages[i];
    if (message && message.role === "user") return message.content;
  }
  return null;
}

/** `firstObservation` stands in for turn 0's prompt when turns come without their messages. */
export function prepareReplay(turns: readonly TurnView[], firstObservation: string | null = null): ReplayStep[] {
  const sorted = [...turns].sort((a, b) => a.idx - b.idx);
  let returnSoFar = 0;
  return sorted.map((turn, index) => ({
    index,
    seen: lastUserMessage(turn) ?? (index > 0 ? (sorted[index - 1]?.observation ?? null) : firstObservation),
    reasoning: turn.reasoning,
    action: turn.action,
    observation: turn.observation,
    reward: turn.reward !== null && Number.isFinite(turn.reward) ? turn.reward : null,
    terminated: turn.terminated,
    truncated: turn.truncated,
    end: stepEnd(turn, (returnSoFar += turn.reward !== null && Number.isFinite(turn.reward) ? turn.reward : 0)),
  }));
}

export function prepareTimeline(steps: readonly ReplayStep[]): TimelinePoint[] {
  return steps.map((step) => ({ step: step.index + 1, reward: step.reward, end: step.terminated || step.truncated ? step.reward : null }));
}

/** The step a key press leads to: ←/→ one step, Home/End the ends; null for other keys. */
export function stepForKey(key: string, current: number, count: number): number | null {
  if (count === 0) return null;
  switch (key) {
    case "ArrowLeft":
      return Math.max(0, current - 1);
    case "ArrowRight":
      return Math.min(count - 1, current + 1);
    case "Home":
      return 0;
    case "End":
      return count - 1;
    default:
      return null;
  }
}
