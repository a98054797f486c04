import type { RunProgressSnapshot } from "../../shared/api/runTypes.js";
import type { RunConfig } from "../../shared/runConfig.js";
import type { LoopEvent } from "./LoopEvent.js";
import { isRegeneration, playsPerGame } from "./rolloutSchedule.js";

type TrackedConfig = Pick<RunConfig, "iterations" | "envsPerIteration" | "plays" | "actorBatch" | "hintPlays" | "regenerationInterval" | "skillsPerRegen" | "designer" | "reward">;

/**
 * Folds a run's loop events into what the run does now: the rollout, its phase, unit counts
 * (designed 3/24, played 120/384, training step 2/8 with its loss) and an estimate of the time left
 * from the rates measured so far. The CLI, the window and the stored progress all read it.
 */
export class RunProgressTracker {
  private iteration = 0;
  private phase = "starting";
  private readonly designedSlots = new Set<number>();
  private readonly validSlots = new Set<number>();
  private played = 0;
  /** The current rollout's share done, as high as it has been. */
  private rolloutFraction = 0;
  private training: RunProgressSnapshot["training"] = null;
  private iterationStartedAt: number | null = null;
  /** Wall time of each whole rollout seen here (its plays and the training round after it). */
  private readonly rolloutMs: number[] = [];
  private version = 0;

  constructor(
    private readonly config: TrackedConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /** Bumped by every event that changed the progress (to write it only when it changed). */
  get changes(): number {
    return this.version;
  }

  handle(event: LoopEvent): void {
    switch (event.type) {
      case "iterationStarted": {
        const now = this.now();
        if (this.iterationStartedAt !== null && event.iteration === this.iteration + 1) this.rolloutMs.push(now - this.iterationStartedAt);
        this.iteration = event.iteration;
        this.iterationStartedAt = now;
        this.phase = "starting";
        this.designedSlots.clear();
        this.validSlots.clear();
        this.played = 0;
        this.training = null;
        this.rolloutFraction = 0;
        break;
      }
      case "slotPhase":
        this.phase = event.phase;
        break;
      case "environmentAdded":
        this.designedSlots.add(event.slot);
        if (event.valid) this.validSlots.add(event.slot);
        break;
      case "episodeFinished":
        this.played += 1;
        break;
      case "iterationCompleted":
        this.phase = "scoring";
        this.rolloutFraction = 1;
        break;
      case "trainingStarted":
        this.phase = "training";
        this.training = { round: event.round, phase: "batch", step: 0, steps: 0, loss: null };
        break;
      case "trainingProgress":
        this.phase = "training";
        this.training = { round: event.round, phase: event.phase, step: event.step, steps: event.steps, loss: event.loss };
        break;
      case "trainingFinished":
        this.training = null;
        break;
      default:
        return;
    }
    const units = this.rolloutUnits();
    const total = units.reduce((sum, unit) => sum + unit.total, 0);
    if (total > 0) this.rolloutFraction = Math.max(this.rolloutFraction, Math.min(1, units.reduce((sum, unit) => sum + unit.done, 0) / total));
    this.version += 1;
  }

  /** The current rollout's designs (a regeneration of a designed run) and plays, done and in all. */
  private rolloutUnits(): RunProgressSnapshot["units"] {
    const generating = this.config.designer.kind === "llm" && isRegeneration(this.iteration, this.config);
    const units: RunProgressSnapshot["units"] = [];
    if (generating) units.push({ name: "designed", done: this.designedSlots.size, total: this.config.envsPerIteration });
    units.push({ name: "played", done: this.played, total: Math.max(this.played, this.expectedPlays()) });
    return units;
  }

  snapshot(): RunProgressSnapshot {
    const now = this.now();
    const units = this.rolloutUnits();
    if (this.training && this.training.steps > 0) units.push({ name: "training steps", done: this.training.step, total: this.training.steps });
    return { iteration: this.iteration, iterations: this.config.iterations, phase: this.phase, units, rolloutFraction: this.rolloutFraction, training: this.training, etaMs: this.estimateLeft(now), updatedAt: now };
  }

  /** Plays the current rollout will make: every game of the batch plays its plain plays, a new batch its hinted ones too. */
  private expectedPlays(): number {
    // Until every slot has its game, assume all will be valid; then only the valid ones play.
    const games = this.designedSlots.size >= this.config.envsPerIteration ? this.validSlots.size : this.config.envsPerIteration;
    const hinted = isRegeneration(this.iteration, this.config) ? this.config.hintPlays : 0;
    return games * (playsPerGame(this.config, games) + hinted);
  }

  /** Time left: whole rollouts at their measured mean; before one has ended, the current one extrapolated from its share of plays done. */
  private estimateLeft(now: number): number | null {
    if (this.iterationStartedAt === null) return null;
    const elapsed = now - this.iterationStartedAt;
    const after = this.config.iterations - this.iteration - 1;
    if (this.rolloutMs.length > 0) {
      const mean = this.rolloutMs.reduce((sum, ms) => sum + ms, 0) / this.rolloutMs.length;
      return Math.max(0, mean - elapsed) + after * mean;
    }
    const total = this.expectedPlays();
    const fraction = total > 0 ? this.played / total : 0;
    if (fraction <= 0) return null;
    const rollout = elapsed / fraction;
    return Math.max(0, rollout - elapsed) + after * rollout;
  }
}
