import type { ChatMessage } from "../../shared/llm.js";
import type { DesignerAttempt } from "../store/queries/trainingQueries.js";
import type { ExportResult } from "./ExportResult.js";
import { skillCentredAdvantages } from "./groupAdvantages.js";

/** One line of `designer.jsonl`: a designer call, what it earned, and its advantage. */
export interface DesignerLine {
  environmentId: number;
  runId: number | null;
  iteration: number | null;
  slot: number | null;
  attempt: number | null;
  /** "repair" for a call that was shown its previous attempt's error. */
  source: "designer" | "repair";
  skill: string | null;
  difficulty: string | null;
  valid: boolean;
  prompt: ChatMessage[];
  completion: ChatMessage[];
  reward: number;
  rewardKind: string | null;
  /** reward - mean reward of the exported attempts of the same skill. */
  advantage: number;
}

/**
 * Designer training lines: every designer or repair call with a designer reward (invalid attempts
 * included: they earned the invalid-attempt reward). Attempts not yet scored are left out and counted.
 */
export function buildDesignerLines(attempts: readonly DesignerAttempt[]): ExportResult<DesignerLine> {
  let excludedUnscored = 0;
  let excludedUnrecorded = 0;
  const kept: (DesignerAttempt & { designerReward: number; prompt: ChatMessage[]; rawReply: string })[] = [];
  for (const attempt of attempts) {
    if (attempt.prompt === null || attempt.rawReply === null) excludedUnrecorded++;
    else if (attempt.designerReward === null) excludedUnscored++;
    else kept.push(attempt as (typeof kept)[number]);
  }
  const advantages = skillCentredAdvantages(kept.map((attempt) => ({ skill: attempt.skill, reward: attempt.designerReward })));
  const lines = kept.map(
    (attempt, i): DesignerLine => ({
      environmentId: attempt.id,
      runId: attempt.runId,
      iteration: attempt.iteration,
      slot: attempt.slot,
      attempt: attempt.attempt,
      source: attempt.source,
      skill: attempt.skill,
      difficulty: attempt.difficulty,
      valid: attempt.valid,
      prompt: attempt.prompt,
      completion: [{ role: "assistant", content: attempt.rawReply }],
      reward: attempt.designerReward,
      rewardKind: attempt.rewardKind,
      advantage: advantages[i]!,
    }),
  );
  return { lines, counts: { lines: lines.length, valid: lines.filter((line) => line.valid).length, excludedUnscored, excludedUnrecorded } };
}
