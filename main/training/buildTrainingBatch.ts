import type { SamplingOptions } from "../../shared/llm.js";
import type { TrainingRole } from "../../shared/trainingConfig.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getTurns, listEpisodes, type Turn } from "../store/queries/episodes.js";
import { getSampledTokens, type SampledTokens } from "../store/queries/sampledTokens.js";
import { listBatchDesignerAttempts, listBatchEnvironments } from "../store/queries/trainingBatch.js";
import { groupAdvantages, skillCentredAdvantages } from "./groupAdvantages.js";
import { emptyLeftOut, type BatchLine, type BatchSampling, type BatchRef, type TrainingBatch, type UntokenisedRow } from "./TrainingBatch.js";

export interface TrainingBatchOptions {
  runId: number;
  /** First and last iteration whose samples the batch holds (inclusive). */
  fromIteration: number;
  toIteration: number;
  /** Defaults to both roles. */
  roles?: readonly TrainingRole[];
  /** The designer advantage is its skill-centred reward times this. Defaults to 1. */
  rewardScale?: number;
  /** Defaults to false (left out and counted). */
  includeCanary?: boolean;
  /** Defaults to false (left out and counted). */
  includeHinted?: boolean;
  /** Defaults to false (left out and counted). */
  includeErrored?: boolean;
  /** Keep a row for each turn or attempt without recorded tokens, saying why (export). Defaults to false (counted only). */
  keepUntokenised?: boolean;
}

const noTokensReason = "no token ids were recorded for this call (the backend gave none: e.g. an OpenAI-compatible server without return_token_ids / logprobs)";

/**
 * The batch of one training round, from what the run stored: the Agent's trajectories (one line per
 * assistant turn, with the exact context it saw) with group-normalised advantages over each
 * environment's selected plays (a zero-variance group is kept with advantage 0), and the Designer's
 * valid first generations with their designer reward centred per skill within the batch, times the
 * reward scale. Canary, hinted and errored plays are left out unless asked for, and counted.
 */
export function buildTrainingBatch(db: ReadonlyDb, options: TrainingBatchOptions): TrainingBatch {
  const roles = options.roles ?? ["agent", "designer"];
  const leftOut = emptyLeftOut();
  const lines: BatchLine[] = [];
  const untokenised: UntokenisedRow[] = [];
  const { runId, fromIteration, toIteration } = options;
  const keep = (line: Omit<BatchLine, "tokens" | "mask" | "behaviorLogprobs" | "sampling">, tokens: SampledTokens) => {
    const sequence = toSequence(tokens);
    if (sequence) lines.push({ ...line, ...sequence, sampling: distributionOf(tokens.sampling) });
    else {
      leftOut.noTokens++;
      if (options.keepUntokenised) untokenised.push({ ...line, tokens: null, mask: null, behaviorLogprobs: null, sampling: null, missing: noTokensReason });
    }
  };

  if (roles.includes("agent")) {
    for (const environment of listBatchEnvironments(db, runId, fromIteration, toIteration)) {
      const plays = [];
      for (const episode of listEpisodes(db, environment.id)) {
        if (episode.canary && !options.includeCanary) leftOut.canary++;
        else if (episode.hinted && !options.includeHinted) leftOut.hinted++;
        else if (episode.error !== null && !options.includeErrored) leftOut.errored++;
        else plays.push(episode);
      }
      const advantages = groupAdvantages(plays.map((play) => play.return))?.advantages ?? plays.map(() => 0);
      plays.forEach((episode, i) => {
        for (const turn of getTurns(db, episode.id, { messages: false })) {
          const ref: BatchRef = { runId, environmentId: environment.id, episodeId: episode.id, turn: turn.idx, attempt: null };
          keep({ role: "agent", advantage: advantages[i]!, ref, adapter: episode.adapter }, turnTokens(turn));
        }
      });
    }
  }

  if (roles.includes("designer")) {
    const attempts = [];
    for (const attempt of listBatchDesignerAttempts(db, runId, fromIteration, toIteration)) {
      if (!attempt.valid || attempt.source !== "designer") leftOut.invalidOrRepair++;
      else if (attempt.designerReward === null) leftOut.unscored++;
      else attempts.push({ ...attempt, reward: attempt.designerReward });
    }
    const scale = options.rewardScale ?? 1;
    const advantages = skillCentredAdvantages(attempts);
    attempts.forEach((attempt, i) => {
      const ref: BatchRef = { runId, environmentId: attempt.id, episodeId: null, turn: null, attempt: attempt.attempt };
      keep({ role: "designer", advantage: advantages[i]! * scale, ref, adapter: attempt.adapter }, getSampledTokens(db, "environments", attempt.id)!);
    });
  }

  const count = (role: TrainingRole) => lines.filter((line) => line.role === role).length;
  return { header: { format: "spade-batch", version: 1, roles: { agent: count("agent"), designer: count("designer") }, "left out": leftOut }, lines, untokenised };
}

function turnTokens(turn: Turn): SampledTokens {
  return { promptTokenIds: turn.promptTokenIds, tokenIds: turn.tokenIds, tokenLogprobs: turn.tokenLogprobs, sampling: turn.sampling };
}

/** The sequence of one call: prompt + completion, the completion masked in; null without recorded tokens. */
function toSequence(tokens: SampledTokens): Pick<BatchLine, "tokens" | "mask" | "behaviorLogprobs"> | null {
  const { promptTokenIds: prompt, tokenIds: completion, tokenLogprobs: logprobs } = tokens;
  if (!prompt || !completion || completion.length === 0) return null;
  const known = logprobs !== null && logprobs.length === completion.length;
  return {
    tokens: [...prompt, ...completion],
    mask: [...prompt.map(() => 0 as const), ...completion.map(() => 1 as const)],
    behaviorLogprobs: [...prompt.map(() => null), ...completion.map((_, i) => (known ? logprobs[i]! : null))],
  };
}

/** The distribution-shaping part of the recorded sampling settings (max tokens, stops and seed do not change log-probs). */
function distributionOf(sampling: SamplingOptions | null): BatchSampling | null {
  if (!sampling) return null;
  const out: BatchSampling = {};
  for (const key of ["temperature", "topK", "topP", "minP"] as const) if (typeof sampling[key] === "number") out[key] = sampling[key];
  return Object.keys(out).length === 0 ? null : out;
}
