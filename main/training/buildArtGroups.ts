import type { ExportResult } from "./ExportResult.js";
import { toOpenAiMessage, type OpenAiMessage, type OpenAiTool } from "./openAiMessages.js";
import { assistantMessage, playTools, turnToolCalls } from "./playConversation.js";
import { scoredGroups } from "./scoredGroups.js";
import type { PlaySelectionOptions } from "./selectPlays.js";
import type { StoredPlayGroup } from "./StoredPlayGroup.js";

/** One sampled token as ART's tokenizer reads it: `token_id:<id>` and its log-probability. */
export interface ArtTokenLogprob {
  token: string;
  logprob: number;
  bytes: null;
  top_logprobs: [];
}

/** A model output the way ART stores it: an OpenAI chat-completion choice (these are trained on). */
export interface ArtChoice {
  index: 0;
  /** "tool_calls" when the reply called tools natively, as an OpenAI choice says. */
  finish_reason: "stop" | "tool_calls";
  message: OpenAiMessage & { role: "assistant" };
  /** The sampled tokens, where the play recorded token ids: ART then trains on exactly these tokens. */
  logprobs?: { content: ArtTokenLogprob[] };
  /** The sampled token ids, as vLLM returns them with `return_token_ids` (where recorded). */
  token_ids?: number[];
  /** The prompt's token ids exactly as the model evaluated them (where recorded: the local backend). */
  prompt_token_ids?: number[];
}

export interface ArtTrajectory {
  messages_and_choices: Array<OpenAiMessage | ArtChoice>;
  /** The tools a tool-use play offered the model (OpenAI format). */
  tools?: OpenAiTool[];
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
 * The choice's `logprobs.content` from a turn's recorded token ids and probabilities, or null when the
 * turn has none (a server that gave no token ids): ART must then retokenise the text, which it does
 * only with `allow_training_without_logprobs` (see the export manifest's notes).
 */
export function artTokenLogprobs(tokenIds: readonly number[] | null, tokenProbs: readonly number[] | null): ArtTokenLogprob[] | null {
  if (!tokenIds || tokenIds.length === 0 || !tokenProbs || tokenProbs.length !== tokenIds.length) return null;
  return tokenIds.map((id, i) => ({ token: `token_id:${id}`, logprob: Math.log(Math.max(tokenProbs[i]!, Number.MIN_VALUE)), bytes: null, top_logprobs: [] }));
}

/**
 * ART trajectory groups: per environment, each selected play as prompt messages with its replies as
 * choices, rewarded with its return. Groups without a learning signal are dropped, as for GRPO.
 * Choices carry their sampled tokens as `token_id:<id>` log-probs where the play recorded them; the
 * counts say how many choices did not (`choicesWithoutTokenIds`).
 */
export function buildArtGroups(groups: readonly StoredPlayGroup[], options: PlaySelectionOptions = {}): ExportResult<ArtGroupLine> {
  const { scored, counts } = scoredGroups(groups, options);
  const lines: ArtGroupLine[] = [];
  let withoutTokenIds = 0;
  for (const { group, plays } of scored) {
    lines.push({
      trajectories: plays.map(({ episode, turns }) => {
        const messages: Array<OpenAiMessage | ArtChoice> = (turns[0]!.messages ?? []).map(toOpenAiMessage);
        turns.forEach((turn, index) => {
          const calls = turnToolCalls(turn);
          const choice: ArtChoice = { index: 0, finish_reason: calls ? "tool_calls" : "stop", message: { ...assistantMessage(turn), role: "assistant" } };
          const content = artTokenLogprobs(turn.tokenIds, turn.tokenProbs);
          if (content) choice.logprobs = { content };
          else withoutTokenIds++;
          if (turn.tokenIds && turn.tokenIds.length > 0) choice.token_ids = [...turn.tokenIds];
          if (turn.promptTokenIds && turn.promptTokenIds.length > 0) choice.prompt_token_ids = [...turn.promptTokenIds];
          messages.push(choice);
          if (index === turns.length - 1) return;
          if (calls) for (const { call, result } of calls) messages.push({ role: "tool", content: result ?? "", tool_call_id: call.id });
          else messages.push({ role: "user", content: turn.observation ?? "" });
        });
        return {
          messages_and_choices: messages,
          ...playTools(episode),
          reward: episode.return,
          metrics: { turns: turns.length },
          metadata: { environmentId: group.environment.id, episodeId: episode.id, hinted: episode.hinted, skill: group.environment.skill },
        };
      }),
    });
  }
  const trajectories = lines.reduce((sum, line) => sum + line.trajectories.length, 0);
  const { droppedZeroVariance, droppedTooSmall, ...exclusions } = counts;
  return { lines, counts: { groups: lines.length, trajectories, choicesWithoutTokenIds: withoutTokenIds, droppedZeroVariance, droppedTooSmall, ...exclusions } };
}
