import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../../shared/runConfig.js";
import { buildRunConfig, defaultRunForm } from "../../../renderer/src/features/runs/lib/buildRunConfig.js";
import { checkRunForm } from "../../../renderer/src/features/runs/lib/checkRunForm.js";
import { formFromConfig } from "../../../renderer/src/features/runs/lib/formFromConfig.js";

const parse = (config: Record<string, unknown>) => parseRunConfig({ ...config, db: "/w/workspace.sqlite" }, "run");

describe("Clone run: a stored config back into the start form", () => {
  it("fills the form's fields and keeps the other non-default keys in the extra JSON, so the form builds the same config", () => {
    const stored = parse({
      name: "first", seed: 7, iterations: 2, envsPerIteration: 3, plays: 4, hintPlays: 1, maxTurns: 9,
      backend: { kind: "llama", modelPath: "/models/stories260K.gguf", contextSize: 8192, threads: 1, modelsDir: "/w/models" },
      corpus: { path: "/data/wiki.txt", maxWords: 300 },
      designer: { attempts: 1, maxTokens: 64, temperature: 0.7 },
      agent: { maxTokens: 32 }, hint: { maxTokens: 48 },
      reward: { kind: "regret" }, memory: { enabled: false }, canary: false,
    });
    const form = formFromConfig(stored as unknown as Record<string, unknown>);
    expect(form).toMatchObject({ name: "first", seed: "7", iterations: "2", envsPerIteration: "3", plays: "4", hintPlays: "1", maxTurns: "9", modelPath: "/models/stories260K.gguf", contextSize: "8192", corpusPath: "/data/wiki.txt", designerAttempts: "1", designerMaxTokens: "64", agentMaxTokens: "32", rewardKind: "regret", memoryEnabled: false });
    expect(JSON.parse(form.extra)).toEqual({ backend: { threads: 1, modelsDir: "/w/models" }, corpus: { maxWords: 300 }, designer: { temperature: 0.7 }, hint: { maxTokens: 48 }, canary: false });
    expect(parse(buildRunConfig(form))).toEqual(stored);
    // The models folder the workbench fills in itself is not repeated.
    expect(JSON.parse(formFromConfig(stored as unknown as Record<string, unknown>, undefined, { modelsDir: "/w/models" }).extra).backend).toEqual({ threads: 1 });
  });

  it("round-trips an OpenAI-backend fixed-pool run, with a new name, and the edited form checks like any other", () => {
    const stored = parse({ seed: 1, iterations: 1, envsPerIteration: 1, plays: 1, hintPlays: 0, maxTurns: 2, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m", stream: false }, corpus: null, designer: { kind: "fixed", set: "builtin" } });
    const form = formFromConfig(stored as unknown as Record<string, unknown>, "clone of run 3");
    expect(form).toMatchObject({ name: "clone of run 3", backendKind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m", designerKind: "fixed", designerSet: "builtin", corpusPath: "" });
    expect(parse(buildRunConfig(form))).toEqual({ ...stored, name: "clone of run 3" });
    expect(checkRunForm({ ...form, plays: "x" })).toMatchObject({ problem: { field: "plays" } });
  });

  it("starts a first run with small, explicit budgets shown in the form", () => {
    const config = parse(buildRunConfig({ ...defaultRunForm, modelPath: "m.gguf" }));
    expect(config).toMatchObject({ iterations: 1, envsPerIteration: 2, plays: 2, hintPlays: 2, designer: { attempts: 2, maxTokens: 512 }, agent: { maxTokens: 128 }, hint: { maxTokens: 128 } });
    expect(config.backend).not.toHaveProperty("contextSize");
    expect(parse(buildRunConfig({ ...defaultRunForm, modelPath: "m.gguf", contextSize: "2048" })).backend).toMatchObject({ contextSize: 2048 });
  });
});
