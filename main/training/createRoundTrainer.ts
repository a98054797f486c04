import type { TrainingConfig } from "../../shared/trainingConfig.js";
import type { RoundTrainer } from "./RoundTrainer.js";
import { TrainerWorker, type TrainerWorkerOptions } from "./TrainerWorker.js";

export interface RoundTrainerOptions {
  /** The trainer's log text (anything that is not a protocol line). Defaults to none. */
  onLog?: (line: string) => void;
  /** PyTorch CPU threads (0: PyTorch's default). Defaults to 0. */
  threads?: number;
  /** PyTorch device. Defaults to "auto" (CUDA when available). */
  device?: string;
  /** The built-in trainers load this base model as they start (then give the GPU back), not in the first round. Defaults to none. */
  baseModel?: string;
}

/**
 * Starts the configured trainer as a persistent worker speaking the trainer line protocol: the
 * built-in "gguf" (resources/trainers/train_gguf.py) or "hf" (train_lora.py) trainer with
 * training.python, or a custom `{"command": [program, script, ...args]}` (the worker flags
 * `--worker --device --dtype --threads` are appended).
 */
export async function createRoundTrainer(config: TrainingConfig, options: RoundTrainerOptions = {}): Promise<RoundTrainer> {
  const trainer = config.trainer;
  const base: TrainerWorkerOptions = { onLog: options.onLog, threads: options.threads, device: options.device };
  const eager = options.baseModel ? { baseModel: options.baseModel } : {};
  let workerOptions: TrainerWorkerOptions;
  if (trainer.kind === "command") {
    const [program, script, ...args] = trainer.command;
    if (!script) throw new Error(`training.trainer.command: expected [program, script, ...args], got ${JSON.stringify(trainer.command)}`);
    workerOptions = { ...base, python: program, script, extraArgs: args, env: trainer.env, cwd: trainer.cwd ?? undefined };
  } else if (trainer.kind === "hf") {
    workerOptions = { ...base, ...eager, trainer: "hf", python: config.python ?? undefined, convertScript: trainer.convertScript ?? undefined, devices: trainer.devices };
  } else {
    workerOptions = { ...base, ...eager, trainer: "gguf", python: config.python ?? undefined, extraArgs: ["--weights", config.weights], devices: trainer.devices };
  }
  const worker = await TrainerWorker.start(workerOptions);
  return {
    // the built-in gguf trainer has the memory model; other trainers are not asked
    ...(trainer.kind === "gguf"
      ? {
          async checkMemory(request: { baseModel: string; hyper: TrainingConfig["hyper"]; longest: number }) {
            const { peakBytes, freeBytes, parts } = await worker.memory(request);
            return { peakBytes, freeBytes, parts };
          },
        }
      : {}),
    async train(request, { signal, onProgress }) {
      const result = await worker.train(request, { signal, onProgress: (p) => onProgress?.({ step: p.step, steps: p.steps, loss: p.loss }) });
      const metrics = Object.fromEntries(Object.entries(result.metrics).filter((entry): entry is [string, number] => typeof entry[1] === "number"));
      const mismatch = result.mismatch ? { meanAbsDiff: result.mismatch.meanAbsDiff, maxAbsDiff: result.mismatch.maxAbsDiff, tokens: result.mismatch.tokens } : null;
      return { adapterPath: result.adapterPath, metrics, mismatch };
    },
    dispose: () => worker.dispose(),
  };
}
