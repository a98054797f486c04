// The start form's training control: which trainers a backend can use inside a run, what each
// needs, and what the form says about it. The engine's rules are main/training/createTrainingRound.ts
// (`trainingRefusal`): the built-in "gguf" trainer trains the local GGUF only; a server is trained
// through the "hf" trainer, whose adapters it loads through vLLM's or SGLang's dynamic LoRA route.
import type { RunForm } from "./buildRunConfig.js";

/** "gguf": the built-in trainer (the recipe's default); "hf": transformers + PEFT; "off": `"training": null`, the run only collects experience. */
export type TrainingMode = "gguf" | "hf" | "off";

export interface TrainingChoice {
  mode: TrainingMode;
  label: string;
}

const labels: Record<RunForm["backendKind"], TrainingChoice[]> = {
  llama: [
    { mode: "gguf", label: "on: built-in trainer" },
    { mode: "hf", label: "on: Hugging Face trainer" },
    { mode: "off", label: "off: collect only" },
  ],
  openai: [
    { mode: "off", label: "off: collect only" },
    { mode: "hf", label: "on: Hugging Face trainer" },
  ],
};

/** The training choices a backend allows, the default first. */
export function trainingChoices(backendKind: RunForm["backendKind"]): TrainingChoice[] {
  return labels[backendKind];
}

/** The form with another backend; a training mode that backend cannot use becomes its default. */
export function withBackend(form: RunForm, backendKind: RunForm["backendKind"]): RunForm {
  const choices = trainingChoices(backendKind);
  const trainingMode = choices.some((choice) => choice.mode === form.trainingMode) ? form.trainingMode : choices[0]!.mode;
  return { ...form, backendKind, trainingMode };
}

/** What the chosen training does and needs, in one or two sentences under the control. */
export function trainingNote(form: Pick<RunForm, "backendKind" | "trainingMode">): string {
  const server = form.backendKind === "openai";
  if (form.trainingMode === "off") {
    return server
      ? "A server is trained only through the Hugging Face trainer: each round's LoRA adapter is loaded into the server through vLLM's or SGLang's dynamic LoRA route. Choose it and name the checkpoint the server serves, or keep training off: the run plays and stores its experience (`\"training\": null`)."
      : "The run plays and stores its experience without training (`\"training\": null`); `spade train` can train on it later.";
  }
  if (form.trainingMode === "hf") {
    return server
      ? "Needs the Hugging Face checkpoint the server serves (its name or folder) and a server started with dynamic LoRA loading (vLLM: `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True` and `--enable-lora`)."
      : "Transformers + PEFT. Needs the Hugging Face checkpoint the GGUF was converted from and llama.cpp's `convert_lora_to_gguf.py`, which turns each round's PEFT adapter into a GGUF LoRA.";
  }
  return "Trains by default, as the recipe does: after every iteration one LoRA round on the run's plays, with the built-in trainer (LoRA straight on this GGUF) on this machine (Python with torch, see `spade trainer check`). On a CPU a round adds minutes; choose off to only collect experience.";
}
