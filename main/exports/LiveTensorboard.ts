import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listRolloutReturns } from "../store/queries/episodes.js";
import { getTrainingRound } from "../store/queries/trainingRounds.js";
import { groupAdvantages } from "../training/groupAdvantages.js";
import { configHParams } from "./configHParams.js";
import { fileVersionRecord, histogramRecord, hparamsSessionEndRecord, hparamsSessionStartRecord, hparamsStatus, scalarsRecord, textRecord } from "./tensorboardEvents.js";

/**
 * A run's TensorBoard event file, written while the run goes on (one folder per run, one file per
 * process that ran it: TensorBoard merges the files of a folder), so `tensorboard --logdir` shows
 * the curves live. Each iteration's metrics are scalars `spade/<name>` at step = iteration, with
 * histograms of the plays' returns and their GRPO advantages; each training round's metrics are
 * scalars `training/<name>` at the step of the iteration it followed; the config is a text summary
 * and the hyperparameters of the folder's HParams session (ended when the run completes or fails).
 * Records are appended whole, so a reader never sees half of one.
 */
export class LiveTensorboard {
  readonly #file: string;

  constructor(
    readonly folder: string,
    private readonly db: ReadonlyDb,
    private readonly runId: number,
    now: number = Date.now(),
  ) {
    mkdirSync(folder, { recursive: true });
    this.#file = join(folder, `events.out.tfevents.${Math.floor(now / 1000)}.${process.pid}.spade`);
    appendFileSync(this.#file, fileVersionRecord(now / 1000));
  }

  get file(): string {
    return this.#file;
  }

  /**
   * The run's config: a text summary (JSON) and the hyperparameters of an HParams-plugin session
   * (one per leaf key), so the HPARAMS tab lists the run with its config beside its metrics.
   */
  config(config: unknown): void {
    const now = Date.now() / 1000;
    appendFileSync(this.#file, Buffer.concat([textRecord("config", `\`\`\`json\n${JSON.stringify(config, null, 2)}\n\`\`\``, 0, now), hparamsSessionStartRecord(configHParams(config), now, now)]));
  }

  /** Ends the HParams session: a completed run as a success, a failed one as a failure (a paused run stays open for its resume). */
  end(status: "completed" | "failed"): void {
    const now = Date.now() / 1000;
    appendFileSync(this.#file, hparamsSessionEndRecord(status === "completed" ? hparamsStatus.success : hparamsStatus.failure, now, now));
  }

  /** An iteration's metrics and the histograms of its plays' returns and advantages. */
  iteration(iteration: number, metrics: Record<string, number>): void {
    const wallTime = Date.now() / 1000;
    const points = Object.entries(metrics)
      .filter(([, value]) => Number.isFinite(value))
      .map(([name, value]) => ({ tag: `spade/${name}`, value }));
    const records: Buffer[] = [scalarsRecord(iteration, wallTime, points)];
    const plays = listRolloutReturns(this.db, this.runId, iteration);
    const groups = new Map<string, number[]>();
    for (const play of plays) {
      const key = `${play.environmentId}:${play.hinted}`;
      groups.set(key, [...(groups.get(key) ?? []), play.return]);
    }
    const advantages = [...groups.values()].flatMap((returns) => groupAdvantages(returns)?.advantages ?? []);
    for (const histogram of [histogramRecord("spade/returns", plays.map((play) => play.return), iteration, wallTime), histogramRecord("spade/advantages", advantages, iteration, wallTime)]) {
      if (histogram) records.push(histogram);
    }
    appendFileSync(this.#file, Buffer.concat(records));
  }

  /** A training round's metrics (loss, KL, clipped fraction, gradient norm, importance ratios, tokens, seconds, ...) as stored. */
  trainingRound(round: number): void {
    const stored = getTrainingRound(this.db, this.runId, round);
    if (!stored) return;
    const points = Object.entries(stored.metrics)
      .filter((entry): entry is [string, number] => typeof entry[1] === "number" && Number.isFinite(entry[1]))
      .map(([name, value]) => ({ tag: `training/${name}`, value }));
    if (points.length > 0) appendFileSync(this.#file, scalarsRecord(stored.afterIteration, Date.now() / 1000, points));
  }
}
