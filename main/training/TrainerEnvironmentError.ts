import type { TrainerEnvironment } from "../../shared/trainerEnvironment.js";

/** The trainer's Python cannot train (checked before rollout 0): the message lists each problem and its fix. */
export class TrainerEnvironmentError extends Error {
  override readonly name = "TrainerEnvironmentError";
  constructor(readonly environment: TrainerEnvironment) {
    super(`training: the trainer's Python (${environment.python}, from ${environment.source}) cannot train: ${environment.problems.join("; ")}`);
  }
}
