// A run config whose model is not a GGUF file is refused by key before a run is created, like a
// missing one: a safetensors file, a Hugging Face folder, an empty file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkRunConfigFiles } from "../../main/selfplay/checkRunConfigFiles.js";
import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";
import { InputError } from "../../shared/validation/InputError.js";

const dir = mkdtempSync(join(tmpdir(), "spade-checkfiles-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configWithModel(modelPath: string): RunConfig {
  return { backend: { kind: "llama", modelPath }, corpus: null } as unknown as RunConfig;
}

function refusal(modelPath: string): string {
  try {
    checkRunConfigFiles(configWithModel(modelPath), "run.json");
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  return "";
}

describe("checkRunConfigFiles: the model must be a GGUF", () => {
  it("accepts a file starting with the GGUF magic, and the real test model", () => {
    const gguf = join(dir, "tiny.gguf");
    writeFileSync(gguf, Buffer.concat([Buffer.from("GGUF"), Buffer.alloc(20)]));
    expect(refusal(gguf)).toBe("");
    expect(refusal("/work/shared/models/stories260K.gguf")).toBe("");
  });

  it("refuses a safetensors file, a folder and an empty file, naming the key and what it found", () => {
    const safetensors = join(dir, "model.safetensors");
    writeFileSync(safetensors, Buffer.concat([Buffer.from([0x10, 0x00, 0x00, 0x00, 0, 0, 0, 0]), Buffer.from('{"__metadata__":{}}')]));
    expect(refusal(safetensors)).toBe(`run.json: backend.modelPath: ${safetensors} is not a GGUF model (it starts with "\\x10\\x00\\x00\\x00", not "GGUF"); the local backend loads .gguf files: download one (the Models page, or an hf: URI) or convert yours with llama.cpp's convert_hf_to_gguf.py`);
    const folder = join(dir, "hf-model");
    mkdirSync(folder);
    expect(refusal(folder)).toContain("is not a GGUF model (it is a folder)");
    const empty = join(dir, "empty.gguf");
    writeFileSync(empty, "");
    expect(refusal(empty)).toContain("is not a GGUF model (it has only 0 bytes)");
    const text = join(dir, "notes.gguf");
    writeFileSync(text, "# my model notes");
    expect(refusal(text)).toContain('it starts with "# my", not "GGUF"');
  });

  it("still names a missing model as missing", () => {
    expect(refusal(join(dir, "nope.gguf"))).toBe(`run.json: backend.modelPath: ${join(dir, "nope.gguf")} does not exist`);
  });
});

describe("checkRunConfigFiles: training the backend cannot do is refused before the run", () => {
  it("a run on a server with the recipe's default training names what to set; collect-only passes", () => {
    const parse = (extra: Record<string, unknown>) => parseRunConfig({ db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null, ...extra }, "run.json");
    expect(() => checkRunConfigFiles(parse({}), "run.json")).toThrow(/run\.json: training\.trainer: the recipe's default trainer "gguf" .*backend\.kind is "openai".*\{"kind": "hf", "baseModel": .*"training": null/);
    expect(() => checkRunConfigFiles(parse({ training: { trainer: "hf" } }), "run.json")).toThrow(/training\.trainer: "hf" needs baseModel \(the Hugging Face checkpoint the server serves\)/);
    expect(() => checkRunConfigFiles(parse({ training: null }), "run.json")).not.toThrow();
    expect(() => checkRunConfigFiles(parse({ training: { trainer: { kind: "hf", baseModel: "Qwen/Qwen3-0.6B" } } }), "run.json")).not.toThrow();
    expect(() => checkRunConfigFiles(parse({ training: { trainer: { command: ["python3", "trainer.py"] } } }), "run.json")).not.toThrow();
  });
});
