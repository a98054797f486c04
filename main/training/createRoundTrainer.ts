import type { TrainingConfig } from "../../shared/trainingConfig.js";
import type { RoundTrainer } from "./RoundTrainer.js";

export interface RoundTrainerOptions {
  /** The trainer's log text (anything that is not a protocol line). Defaults to none. */
  onLog?: (line: string) => void;
}

/** Starts the configured trainer as a persistent worker speaking the trainer line protocol. */
export async function createRoundTrainer(config: TrainingConfig, _options: RoundTrainerOptions = {}): Promise<RoundTrainer> {
  throw new Error(`training.trainer ${JSON.stringify(config.trainer.kind)}: the trainer worker is not available in this build`);
}
