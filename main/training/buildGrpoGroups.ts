import type { ExportResult } from "./ExportResult.js";
import type { OpenAiMessage, OpenAiTool } from "./openAiMessages.js";
import { assistantContent, playConversation, playTools } from "./playConversation.js";
import { scoredGroups } from "./scoredGroups.js";
import type { PlaySelectionOptions } from "./selectPlays.js";
import type { StoredPlayGroup } from "./StoredPlayGroup.js";

export interface GrpoTurn {
  index: number;
  /** What the model generated (reasoning included). */
  completion: string;
  action: string | null;
  reward: number | null;
  /** Generated token ids and their probabilities, where the backend recorded them. */
  tokenIds?: number[];
  tokenProbs?: number[];
}

export interface GrpoPlay {
  episodeId: number;
  playIndex: number;
  hinted: boolean;
  seed: number | null;
  return: number;
  advantage: number;
  /** The full multi-turn conversation (OpenAI messages), ending with the last reply. */
  messages: OpenAiMessage[];
  /** The tools a tool-use play offered the model. */
  tools?: OpenAiTool[];
  turns: GrpoTurn[];
}

/** One line of `grpo.jsonl`: every selected play of one environment. */
export interface GrpoGroupLine {
  environmentId: number;
  runId: number | null;
  iteration: number | null;
  skill: string | null;
  className: string | null;
  mean: number;
  std: number;
  plays: GrpoPlay[];
}

/**
 * GRPO groups: the selected plays of each environment with advantage = (return - mean) / std.
 * Groups without a learning signal (fewer than two plays, or zero variance) are dropped and counted.
 */
export function buildGrpoGroups(groups: readonly StoredPlayGroup[], options: PlaySelectionOptions = {}): ExportResult<GrpoGroupLine> {
  const { scored, counts } = scoredGroups(groups, options);
  const lines: GrpoGroupLine[] = [];
  for (const { group, plays, normalised } of scored) {
    const { environment } = group;
    lines.push({
      environmentId: environment.id,
      runId: environment.runId,
      iteration: environment.iteration,
      skill: environment.skill,
      className: environment.className,
      mean: normalised.mean,
      std: normalised.std,
      plays: plays.map(({ episode, turns }, i) => ({
        episodeId: episode.id,
        playIndex: episode.playIndex,
        hinted: episode.hinted,
        seed: episode.seed,
        return: episode.return,
        advantage: normalised.advantages[i]!,
        messages: playConversation(turns)!,
        ...playTools(episode),
        turns: turns.map((turn) => ({
          index: turn.idx,
          completion: assistantContent(turn),
          action: turn.action,
          reward: turn.reward,
          ...(turn.tokenIds ? { tokenIds: turn.tokenIds } : {}),
          ...(turn.tokenProbs ? { tokenProbs: turn.tokenProbs } : {}),
        })),
      })),
    });
  }
  const plays = lines.reduce((sum, line) => sum + line.plays.length, 0);
  const { droppedZeroVariance, droppedTooSmall, ...exclusions } = counts;
  return { lines, counts: { groups: lines.length, plays, droppedZeroVariance, droppedTooSmall, ...exclusions } };
}
