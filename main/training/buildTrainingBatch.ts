import type { SamplingOptions } from "../../shared/llm.js";
import type { TrainingRole } from "../../shared/trainingConfig.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getTurns } from "../store/queries/episodes.js";
import { getSampledTokens, type SampledTokens } from "../store/queries/sampledTokens.js";
import { listRolloutPlays, listScoredDesignerSamples, type RolloutPlay } from "../store/queries/trainingBatch.js";
import { episodeSequence } from "./episodeSequence.js";
import { groupAdvantages } from "./groupAdvantages.js";
import { emptyLeftOut, type BatchLine, type BatchRef, type BatchSampling, type TrainingBatch, type UntokenisedRow } from "./TrainingBatch.js";

export interface TrainingBatchOptions {
  runId: number;
  /** First and last rollout (iteration) whose agent plays the batch holds (inclusive). */
  fromIteration: number;
  toIteration: number;
  /** The regenerations whose designer samples the batch holds: those whose delayed reward was scored in the range. Defaults to none. */
  designerRegenerations?: readonly number[];
  /** Per regeneration, the factor its stored designer advantages are multiplied by (the training step's "auto" scale over the scoring rollout's: `designerScaleFactor`). Defaults to 1. */
  designerScale?: ReadonlyMap<number, number>;
  /** Defaults to both roles. */
  roles?: readonly TrainingRole[];
  /** Defaults to true (the canary is one of its game's plays, as in the reference). */
  includeCanary?: boolean;
  /** Defaults to false (left out and counted). */
  includeHinted?: boolean;
  /** Plays the infrastructure failed (step time-out, sandbox crash, backend error). Defaults to false (left out and counted). */
  includeErrored?: boolean;
  /** Samples of one step: designer samples first, agent samples past it are trimmed and counted. Defaults to no limit. */
  actorBatch?: number | null;
  /**
   * The compact filter: a play that did not terminate counts in its group's advantages and stays one
   * of the step's samples (its place in the batch, the trainer's divisor) but trains no token: it has
   * no line and is counted (`compactFiltered`, the header's `maskedSamples`). Defaults to false.
   */
  compactFilter?: boolean;
  /**
   * Fill a short batch as the reference's `upsample_trajectories` (`orchestrator.py`, Stage 7) does:
   * agent samples copied round-robin, in batch order, up to `actorBatch` minus the batch's designer
   * samples; each copy is a sample of its own (`ref.copy`). Defaults to false.
   */
  upsample?: boolean;
  /** Keep a row for each sample without recorded tokens, saying why (export). Defaults to false (counted only). */
  keepUntokenised?: boolean;
}

const noTokensReason = "no token ids were recorded for this call (the backend gave none: e.g. an OpenAI-compatible server without return_token_ids / logprobs)";

/**
 * The batch of one training round, as the reference builds a step's batch. Agent: the plays of
 * each rollout of the range, one group per game and rollout (advantages normalised within it,
 * population std, a zero-variance group kept with advantage 0); each play is one sample (a
 * multi-turn episode is one line, its observation tokens masked, when its turns extend each other).
 * A play that the infrastructure failed is left out and counted; a `step()` exception scored -1 is a
 * normal trajectory. Designer: the valid generations of `designerRegenerations` with the advantage
 * stored when their reward was scored (masked ones left out). Designer samples come first, and
 * agent samples past `actorBatch` samples are trimmed.
 */
export function buildTrainingBatch(db: ReadonlyDb, options: TrainingBatchOptions): TrainingBatch {
  const roles = options.roles ?? ["agent", "designer"];
  const leftOut = emptyLeftOut();
  const designerLines: BatchLine[] = [];
  const agentSamples: BatchLine[][] = [];
  const untokenised: UntokenisedRow[] = [];
  const { runId } = options;
  const untokenisedRow = (line: Omit<BatchLine, "tokens" | "mask" | "behaviorLogprobs" | "sampling">) => {
    leftOut.noTokens++;
    if (options.keepUntokenised) untokenised.push({ ...line, tokens: null, mask: null, behaviorLogprobs: null, sampling: null, missing: noTokensReason });
  };

  if (roles.includes("designer")) {
    for (const sample of listScoredDesignerSamples(db, runId, options.designerRegenerations ?? [])) {
      if (sample.advantage === null) {
        if (sample.masked) leftOut.masked++;
        else leftOut.unscored++;
        continue;
      }
      const ref: BatchRef = { runId, environmentId: sample.id, episodeId: null, turn: null, attempt: sample.attempt };
      const line = { role: "designer" as const, advantage: sample.advantage * (options.designerScale?.get(sample.iteration) ?? 1), ref, adapter: sample.adapter };
      const sequence = toSequence(getSampledTokens(db, "environments", sample.id)!);
      if (sequence) designerLines.push({ ...line, ...sequence });
      else untokenisedRow(line);
    }
  }

  if (roles.includes("agent")) {
    for (const group of groupsOf(listRolloutPlays(db, runId, options.fromIteration, options.toIteration))) {
      const plays = group.filter((play) => {
        if (play.canary && options.includeCanary === false) return void leftOut.canary++;
        if (play.hinted && !options.includeHinted) return void leftOut.hinted++;
        if (play.error !== null && !play.scoredStepError && !options.includeErrored) return void leftOut.errored++;
        return true;
      });
      const advantages = groupAdvantages(plays.map((play) => play.return))?.advantages ?? [];
      plays.forEach((play, i) => {
        const ref: BatchRef = { runId, environmentId: play.environmentId, episodeId: play.id, turn: null, attempt: null };
        const line = { role: "agent" as const, advantage: advantages[i]!, ref, adapter: play.adapter };
        const turns = getTurns(db, play.id, { messages: false });
        const malformed = turns.filter((turn) => turn.info?.malformedToolCall === true).length;
        leftOut.malformedToolCalls += malformed;
        if (malformed > 0 && malformed === turns.length) return void agentSamples.push([]); // nothing of it is trained: a sample with loss mask 0
        const sequences = episodeSequence(turns.map((turn) => ({ promptTokenIds: turn.promptTokenIds, tokenIds: turn.tokenIds, tokenLogprobs: turn.tokenLogprobs, trained: turn.info?.malformedToolCall !== true })));
        if (sequences === null) return untokenisedRow(line);
        const sampling = distributionOf(turns[0]?.sampling ?? null);
        // A compact-filtered play stays one of the step's samples with loss mask 0, as the reference keeps it: no line, but a place in the batch and the divisor.
        if (options.compactFilter === true && !play.terminated) return void (leftOut.compactFiltered++, agentSamples.push([]));
        agentSamples.push(sequences.map((sequence) => ({ ...line, ...sequence, sampling })));
      });
    }
  }

  // The reference puts the designer samples first and trims the step's batch to its size.
  const room = options.actorBatch == null ? Infinity : Math.max(0, options.actorBatch - designerLines.length);
  const kept = agentSamples.slice(0, room);
  leftOut.trimmed += agentSamples.length - kept.length;
  const played = kept.length;
  if (options.upsample === true && Number.isFinite(room)) {
    for (let i = 0; played > 0 && kept.length < room; i++) {
      const copy = Math.floor(i / played) + 1;
      kept.push(kept[i % played]!.map((line) => ({ ...line, ref: { ...line.ref, copy } })));
    }
  }
  const maskedSamples = kept.filter((sample) => sample.length === 0).length;
  const lines = [...designerLines, ...kept.flat()];
  const samples = { agent: kept.length - maskedSamples, designer: designerLines.length };
  return { header: { format: "spade-batch", version: 1, roles: samples, "left out": leftOut, maskedSamples, globalBatch: options.actorBatch ?? null, upsampled: kept.length - played }, lines, untokenised };
}

/** Consecutive plays of one game in one rollout. */
function groupsOf(plays: readonly RolloutPlay[]): RolloutPlay[][] {
  const groups: RolloutPlay[][] = [];
  for (const play of plays) {
    const last = groups.at(-1)?.[0];
    if (last && last.environmentId === play.environmentId && last.rollout === play.rollout) groups.at(-1)!.push(play);
    else groups.push([play]);
  }
  return groups;
}

/** The sequence of one call: prompt + completion, the completion masked in; null without recorded tokens. */
function toSequence(tokens: SampledTokens): Pick<BatchLine, "tokens" | "mask" | "behaviorLogprobs" | "sampling"> | null {
  const [sequence] = episodeSequence([tokens]) ?? [];
  return sequence ? { ...sequence, sampling: distributionOf(tokens.sampling) } : null;
}

/** The distribution-shaping part of the recorded sampling settings and the log-probs' definition (max tokens, stops and seed do not change log-probs). */
function distributionOf(sampling: SamplingOptions | null): BatchSampling | null {
  if (!sampling) return null;
  const out: BatchSampling = {};
  for (const key of ["temperature", "topK", "topP", "minP"] as const) if (typeof sampling[key] === "number") out[key] = sampling[key];
  // Which function the recorded log-probs are (a server's own; absent: llama.cpp's sampling transform).
  if (sampling.logprobs === "raw" || sampling.logprobs === "tempered") out.logprobs = sampling.logprobs;
  return Object.keys(out).length === 0 ? null : out;
}
