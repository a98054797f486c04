import type { ReactNode } from "react";
import { TextWithCode } from "../../../components/TextWithCode.js";
import type { RunForm } from "../lib/buildRunConfig.js";
import { trainingChoices, trainingNote, type TrainingMode } from "../lib/trainingChoices.js";

type Field = (key: keyof RunForm, label: string, input: ReactNode) => ReactNode;

/** The start form's training control: on or off, which trainer, what it needs (the choices follow the backend). */
export function TrainingFields({ form, set, field }: { form: RunForm; set: <K extends keyof RunForm>(key: K, value: RunForm[K]) => void; field: Field }) {
  const hf = form.trainingMode === "hf";
  return (
    <>
      {field(
        "trainingMode",
        "Training",
        <select value={form.trainingMode} onChange={(e) => set("trainingMode", e.target.value as TrainingMode)} aria-label="training">
          {trainingChoices(form.backendKind).map((choice) => (
            <option key={choice.mode} value={choice.mode}>
              {choice.label}
            </option>
          ))}
        </select>,
      )}
      {hf && field("trainingBaseModel", "Trainer base model", <input value={form.trainingBaseModel} placeholder="Hugging Face id or folder" onChange={(e) => set("trainingBaseModel", e.target.value)} aria-label="Trainer base model" />)}
      {hf && form.backendKind === "llama" && field("trainingConvertScript", "LoRA conversion script", <input value={form.trainingConvertScript} placeholder="…/llama.cpp/convert_lora_to_gguf.py" onChange={(e) => set("trainingConvertScript", e.target.value)} aria-label="LoRA conversion script" />)}
      <p className="wide form-note muted small" data-testid="training-note">
        <TextWithCode text={trainingNote(form)} />
      </p>
    </>
  );
}
