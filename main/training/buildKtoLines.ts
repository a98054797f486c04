import type { ExportResult } from "./ExportResult.js";
import { toOpenAiMessage, type OpenAiTool } from "./openAiMessages.js";
import { assistantMessage, playTools } from "./playConversation.js";
import { scoredGroups } from "./scoredGroups.js";
import type { PlaySelectionOptions } from "./selectPlays.js";
import type { StoredPlayGroup } from "./StoredPlayGroup.js";
import { toTrlMessages, type TrlMessage } from "./trlMessages.js";

/** One line of `trl-kto.jsonl`, TRL's unpaired-preference format (conversational, tool-call arguments as objects; `tools` for tool-use plays). */
export interface KtoLine {
  prompt: TrlMessage[];
  completion: TrlMessage[];
  label: boolean;
  tools?: OpenAiTool[];
}

/**
 * KTO data: every turn of every play becomes one line, its prompt exactly as the model saw it and
 * its reply as the completion, labelled desirable when the play beat its group's mean return
 * (positive GRPO advantage) and undesirable when it fell below. Groups without a signal are dropped.
 */
export function buildKtoLines(groups: readonly StoredPlayGroup[], options: PlaySelectionOptions = {}): ExportResult<KtoLine> {
  const { scored, counts } = scoredGroups(groups, options);
  let playsAtMean = 0;
  let desirable = 0;
  const lines: KtoLine[] = [];
  for (const { plays, normalised } of scored) {
    plays.forEach((play, i) => {
      const advantage = normalised.advantages[i]!;
      if (advantage === 0) {
        playsAtMean++;
        return;
      }
      for (const turn of play.turns) {
        lines.push({ prompt: toTrlMessages((turn.messages ?? []).map(toOpenAiMessage)), completion: toTrlMessages([assistantMessage(turn)]), label: advantage > 0, ...playTools(play.episode) });
        if (advantage > 0) desirable++;
      }
    });
  }
  const { droppedZeroVariance, droppedTooSmall, ...exclusions } = counts;
  return { lines, counts: { lines: lines.length, desirable, undesirable: lines.length - desirable, droppedZeroVariance, droppedTooSmall, playsAtMean, ...exclusions } };
}
