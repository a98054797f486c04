/** Progress the loop reports to the CLI and the UI. */
export type LoopEvent =
  | { type: "iterationStarted"; runId: number; iteration: number; iterations: number }
  | { type: "slotPhase"; runId: number; iteration: number; slot: number; slots: number; phase: "designing" | "validating" | "hinting" | "playing" | "scoring"; detail?: string }
  | { type: "environmentAdded"; runId: number; iteration: number; slot: number; environmentId: number; valid: boolean; className: string | null }
  | { type: "episodeFinished"; runId: number; environmentId: number; hinted: boolean; playIndex: number; return: number; error: string | null }
  | { type: "environmentScored"; runId: number; environmentId: number; winRate: number | null; regret: number | null; designerReward: number }
  | { type: "iterationCompleted"; runId: number; iteration: number; metrics: Record<string, number> }
  /** Something the loop changed to keep going, e.g. a grounding document trimmed to fit the context. */
  | { type: "note"; runId: number; iteration: number; kind: string; text: string }
  | TrainingEvent;

/** A training round's phases: building the batch, training (with the trainer's steps and loss), registering and loading the adapter. */
export type TrainingEvent =
  | { type: "trainingStarted"; runId: number; round: number; afterIteration: number; sequences: number }
  | { type: "trainingProgress"; runId: number; round: number; phase: "batch" | "training" | "registering" | "loading"; step: number; steps: number; loss: number | null }
  | { type: "trainingFinished"; runId: number; round: number; status: "completed" | "failed" | "rejected"; adapter: string | null; loss: number | null; reason: string | null };
