import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../../shared/runConfig.js";
import { buildRunConfig, defaultRunForm } from "../../../renderer/src/features/runs/lib/buildRunConfig.js";
import { checkRunForm, fieldOfConfigError } from "../../../renderer/src/features/runs/lib/checkRunForm.js";
import { formFromConfig } from "../../../renderer/src/features/runs/lib/formFromConfig.js";
import { trainingChoices, trainingNote, withBackend } from "../../../renderer/src/features/runs/lib/trainingChoices.js";
import { trainingRefusal } from "../../../main/training/createTrainingRound.js";

const parse = (config: Record<string, unknown>) => parseRunConfig({ ...config, db: "/w/workspace.sqlite" }, "run config");
const local = { ...defaultRunForm, modelPath: "m.gguf" };
const server = withBackend({ ...defaultRunForm, model: "Qwen/Qwen2.5-7B-Instruct" }, "openai");

describe("the start form's training control", () => {
  it("trains a local first run with the built-in trainer by default, and says so", () => {
    expect(local.trainingMode).toBe("gguf");
    const config = parse(buildRunConfig(local));
    expect(config.training?.trainer).toEqual({ kind: "gguf" });
    expect(trainingNote(local)).toMatch(/^Trains by default/);
    expect(trainingRefusal(config)).toBeNull();
  });

  it("turns training off for a server with the defaults, so the engine's refusal never comes", () => {
    expect(server.trainingMode).toBe("off");
    expect(trainingChoices("openai").map((choice) => choice.mode)).toEqual(["off", "hf"]);
    const checked = checkRunForm(server);
    expect("config" in checked && checked.config.training).toBeNull();
    const config = parse(buildRunConfig(server));
    expect(trainingRefusal(config)).toBeNull();
    // The note says what training a server needs.
    expect(trainingNote(server)).toContain("Hugging Face trainer");
    // Back to a local model, "off" stays as chosen.
    expect(withBackend(server, "llama").trainingMode).toBe("off");
  });

  it("asks for what the hf trainer needs next to its fields, then builds a config the engine accepts", () => {
    const hfServer = { ...server, trainingMode: "hf" as const };
    expect(checkRunForm(hfServer)).toMatchObject({ problem: { field: "trainingBaseModel" } });
    const ready = checkRunForm({ ...hfServer, trainingBaseModel: "Qwen/Qwen2.5-7B-Instruct" });
    expect("config" in ready).toBe(true);
    if ("config" in ready) {
      expect(ready.config.training).toEqual({ trainer: { kind: "hf", baseModel: "Qwen/Qwen2.5-7B-Instruct" } });
      expect(trainingRefusal(parse(ready.config))).toBeNull();
    }
    const hfLocal = { ...local, trainingMode: "hf" as const, trainingBaseModel: "/ckpt" };
    expect(checkRunForm(hfLocal)).toMatchObject({ problem: { field: "trainingConvertScript" } });
    expect(checkRunForm({ ...hfLocal, trainingConvertScript: "/llama.cpp/convert_lora_to_gguf.py" })).toHaveProperty("config");
  });

  it("places the engine's training refusal next to the training control", () => {
    const refusal = trainingRefusal(parse(buildRunConfig({ ...server, trainingMode: "gguf" })));
    expect(refusal).not.toBeNull();
    expect(fieldOfConfigError(`run config: ${refusal}`)).toBe("trainingMode");
    expect(fieldOfConfigError("run config: training.trainer.baseModel: x")).toBe("trainingBaseModel");
  });

  it("Clone run keeps the training choice and builds the same config back", () => {
    for (const form of [{ ...server }, { ...server, trainingMode: "hf" as const, trainingBaseModel: "Qwen/Q" }, { ...local, trainingMode: "hf" as const, trainingBaseModel: "/ckpt", trainingConvertScript: "/c.py" }, { ...local, trainingMode: "off" as const }, local]) {
      const stored = parse(buildRunConfig(form));
      const clone = formFromConfig(stored as unknown as Record<string, unknown>);
      expect({ mode: clone.trainingMode, base: clone.trainingBaseModel, script: clone.trainingConvertScript }).toEqual({ mode: form.trainingMode, base: form.trainingBaseModel, script: form.backendKind === "llama" ? form.trainingConvertScript : "" });
      expect(clone.extra).toBe("");
      expect(parse(buildRunConfig(clone))).toEqual(stored);
    }
    // Other training keys stay in the extra JSON.
    const every = parse({ ...buildRunConfig(local), training: { every: 2 } });
    expect(JSON.parse(formFromConfig(every as unknown as Record<string, unknown>).extra)).toEqual({ training: { every: 2 } });
  });
});
