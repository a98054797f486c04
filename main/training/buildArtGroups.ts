import type { ChatMessage } from "../../shared/llm.js";
import type { ExportResult } from "./ExportResult.js";
import { assistantContent } from "./playConversation.js";
import { scoredGroups } from "./scoredGroups.js";
import type { PlaySelectionOptions } from "./selectPlays.js";
import type { StoredPlayGroup } from "./StoredPlayGroup.js";

/** A model output the way ART stores it: an OpenAI chat-completion choice (these are trained on). */
export interface ArtChoice {
  index: 0;
  finish_reason: "stop";
  message: { role: "assistant"; content: string };
}

export interface ArtTrajectory {
  messages_and_choices: Array<ChatMessage | ArtChoice>;
  /** The play's return; ART normalises rewards within the group itself. */
  reward: number;
  metrics: Record<string, number>;
  metadata: Record<string, string | number | boolean | null>;
}

/** One line of `art.jsonl`: an ART TrajectoryGroup. */
export interface ArtGroupLine {
  trajectories: ArtTrajectory[];
}

/**
 * ART trajectory groups: per environment, each selected play as prompt messages with its replies as
 * choices, rewarded with its return. Groups without a learning signal are dropped, as for GRPO.
 */
export function buildArtGroups(groups: readonly StoredPlayGroup[], options: PlaySelectionOptions = {}): ExportResult<ArtGroupLine> {
  const { scored, counts } = scoredGroups(groups, options);
  const lines: ArtGroupLine[] = [];
  for (const { group, plays } of scored) {
    lines.push({
      trajectories: plays.map(({ episode, turns }) => {
        const messages: Array<ChatMessage | ArtChoice> = (turns[0]!.messages ?? []).map((message) => ({ ...message }));
        turns.forEach((turn, index) => {
          messages.push({ index: 0, finish_reason: "stop", message: { role: "assistant", content: assistantContent(turn) } });
          if (index < turns.length - 1) messages.push({ role: "user", content: turn.observation ?? "" });
        });
        return {
          messages_and_choices: messages,
          reward: episode.return,
          metrics: { turns: turns.length },
          metadata: { environmentId: group.environment.id, episodeId: episode.id, hinted: episode.hinted, skill: group.environment.skill },
        };
      }),
    });
  }
  const trajectories = lines.reduce((sum, line) => sum + line.trajectories.length, 0);
  const { droppedZeroVariance, droppedTooSmall, ...exclusions } = counts;
  return { lines, counts: { groups: lines.length, trajectories, droppedZeroVariance, droppedTooSmall, ...exclusions } };
}
