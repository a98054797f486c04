import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../../shared/runConfig.js";
import { buildRunConfig } from "../../../renderer/src/features/runs/lib/buildRunConfig.js";
import { ConfigFileError, formFromConfigFile } from "../../../renderer/src/features/runs/lib/formFromConfigFile.js";

const examples = join(import.meta.dirname, "..", "..", "..", "resources", "examples");
const parse = (config: Record<string, unknown>) => parseRunConfig({ ...config, db: "/w/workspace.sqlite" }, "run");

describe("the start form filled from a run config file", () => {
  it("builds the quick start's config back, less the file's workspace and models folder", () => {
    const text = readFileSync(join(examples, "quick-start.json"), "utf8");
    const form = formFromConfigFile("quick-start.json", text);
    expect(form).toMatchObject({ name: "quick start: stories260K learns the story-word games", seed: "1", iterations: "10", plays: "16", hintPlays: "0", designerKind: "fixed", designerSet: "story-words", trainingMode: "gguf", modelPath: "hf:ggml-org/models-moved/tinyllamas/stories260K.gguf" });
    const { backend, ...rest } = JSON.parse(text) as { backend: Record<string, unknown> } & Record<string, unknown>;
    const { modelsDir: _modelsDir, ...ownBackend } = backend;
    expect(parse(buildRunConfig(form))).toEqual(parse({ ...rest, backend: ownBackend }));
  });

  it("builds the other shipped examples back (the library designer of paper-rlve.json is not a form choice)", () => {
    for (const file of ["first-run.json", "paper-spade.json", "paper-static.json", "paper-no-memory.json", "paper-no-corpus.json"]) {
      const raw = JSON.parse(readFileSync(join(examples, file), "utf8")) as Record<string, unknown> & { backend: Record<string, unknown> };
      const { modelsDir: _modelsDir, ...backend } = raw.backend;
      expect(parse(buildRunConfig(formFromConfigFile(file, JSON.stringify(raw)))), file).toEqual(parse({ ...raw, backend }));
    }
  });

  it("names the file and what is wrong with it", () => {
    expect(() => formFromConfigFile("a.json", "{")).toThrow(ConfigFileError);
    expect(() => formFromConfigFile("a.json", "{")).toThrow(/^a\.json: not JSON: /);
    expect(() => formFromConfigFile("a.json", "[1]")).toThrow("a.json: expected a run config (a JSON object), got an array");
    expect(() => formFromConfigFile("a.json", JSON.stringify({ backend: { kind: "llama", modelPath: "m.gguf" }, corpus: null, plays: "8" }))).toThrow(/^a\.json: plays: /);
  });
});
