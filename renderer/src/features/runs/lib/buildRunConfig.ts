// The start-run form's fields -> the loop's run config (the engine adds the workspace `db`).

export interface RunForm {
  name: string;
  seed: string;
  iterations: string;
  envsPerIteration: string;
  plays: string;
  hintPlays: string;
  maxTurns: string;
  backendKind: "llama" | "openai";
  modelPath: string;
  baseUrl: string;
  model: string;
  corpusPath: string;
  rewardKind: string;
  memoryEnabled: boolean;
}

export const defaultRunForm: RunForm = {
  name: "",
  seed: "1",
  iterations: "3",
  envsPerIteration: "4",
  plays: "8",
  hintPlays: "8",
  maxTurns: "25",
  backendKind: "llama",
  modelPath: "",
  baseUrl: "http://127.0.0.1:8080/v1",
  model: "",
  corpusPath: "",
  rewardKind: "blend",
  memoryEnabled: true,
};

/** A form value that must be a whole number; the error names the field. */
export class RunFormError extends Error {
  override readonly name = "RunFormError";
}

function whole(label: string, text: string, min: number): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min) throw new RunFormError(`${label} must be a whole number of at least ${min}, got "${text}"`);
  return Number(text);
}

export function buildRunConfig(form: RunForm): Record<string, unknown> {
  const backend =
    form.backendKind === "llama"
      ? { kind: "llama", modelPath: required("Model path", form.modelPath) }
      : { kind: "openai", baseUrl: required("Base URL", form.baseUrl), model: required("Model", form.model) };
  return {
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    seed: whole("Seed", form.seed, 0),
    iterations: whole("Iterations", form.iterations, 1),
    envsPerIteration: whole("Environments per iteration", form.envsPerIteration, 1),
    plays: whole("Plays", form.plays, 1),
    hintPlays: whole("Hinted plays", form.hintPlays, 0),
    maxTurns: whole("Max turns", form.maxTurns, 1),
    backend,
    corpus: form.corpusPath.trim() ? { path: form.corpusPath.trim() } : null,
    reward: { kind: form.rewardKind },
    memory: { enabled: form.memoryEnabled },
  };
}

function required(label: string, text: string): string {
  if (!text.trim()) throw new RunFormError(`${label} is required`);
  return text.trim();
}
