import type { ExportResult } from "./ExportResult.js";
import type { OpenAiTool } from "./openAiMessages.js";
import { playConversation, playTools } from "./playConversation.js";
import { emptyExclusions, selectPlays, type PlaySelectionOptions } from "./selectPlays.js";
import type { StoredPlayGroup } from "./StoredPlayGroup.js";
import { toTrlMessages, type TrlMessage } from "./trlMessages.js";

export interface SftOptions extends PlaySelectionOptions {
  /** Plays kept per environment, best return first. Defaults to 1. */
  bestPerGroup?: number;
  /** A play is kept only if it returned more than this. Defaults to 0 (only plays that won something). */
  minReturn?: number;
}

/** One line of `trl-sft.jsonl`, TRL's conversational format (tool-call arguments as objects; `tools` for tool-use plays). */
export interface SftLine {
  messages: TrlMessage[];
  tools?: OpenAiTool[];
}

/**
 * Rejection-sampling fine-tuning data: per environment, the plays with the best return (at most
 * `bestPerGroup`, ties broken by play order), each above `minReturn`, as whole conversations.
 */
export function buildSftLines(groups: readonly StoredPlayGroup[], options: SftOptions = {}): ExportResult<SftLine> {
  const bestPerGroup = options.bestPerGroup ?? 1;
  const minReturn = options.minReturn ?? 0;
  const exclusions = emptyExclusions();
  let groupsWithoutSuccess = 0;
  let groupsUsed = 0;
  const lines: SftLine[] = [];
  for (const group of groups) {
    const plays = selectPlays(group, options, exclusions).filter((play) => play.episode.return > minReturn);
    if (plays.length === 0) {
      groupsWithoutSuccess++;
      continue;
    }
    groupsUsed++;
    const best = plays
      .map((play, order) => ({ play, order }))
      .sort((a, b) => b.play.episode.return - a.play.episode.return || a.order - b.order)
      .slice(0, bestPerGroup);
    for (const { play } of best) lines.push({ messages: toTrlMessages(playConversation(play.turns)!), ...playTools(play.episode) });
  }
  return { lines, counts: { lines: lines.length, groups: groupsUsed, groupsWithoutSuccess, ...exclusions } };
}
