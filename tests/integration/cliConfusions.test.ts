// What a newcomer following the README met on the command line (issue 35): each a real `spade`
// child process on a real workspace file.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { spadeCli } from "../support/startCli.js";

function spade(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [spadeCli, ...args], { encoding: "utf8", timeout: 60_000, env: { ...process.env, ...env } });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-cli-confusions-"));
});

function writeConfig(name: string, fields: Record<string, unknown>): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ db: `${name}.sqlite`, seed: 1, iterations: 1, envsPerIteration: 1, plays: 1, hintPlays: 1, maxTurns: 2, training: null, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null, ...fields }));
  return path;
}

describe("spade run refuses a config problem before any run exists (exit 2)", () => {
  it("a corpus that holds no documents", () => {
    writeFileSync(join(dir, "empty.jsonl"), "\n\n");
    const result = spade(["run", "--config", writeConfig("empty-corpus", { corpus: { path: "empty.jsonl" } })]);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(`empty-corpus.json: corpus.path: corpus ${join(dir, "empty.jsonl")} holds no documents`);
    expect(existsSync(join(dir, "empty-corpus.sqlite"))).toBe(false);
  });

  it("an hf: model not downloaded whose download host cannot be reached", () => {
    const config = writeConfig("offline-model", { backend: { kind: "llama", modelPath: "hf:someone/tiny/tiny.gguf", modelsDir: "models" } });
    const result = spade(["run", "--config", config], { HF_ENDPOINT: "http://127.0.0.1:9/", MODEL_ENDPOINT: "" });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain("offline-model.json: backend.modelPath: cannot download model hf:someone/tiny/tiny.gguf: 127.0.0.1:9 cannot be reached");
    expect(existsSync(join(dir, "offline-model.sqlite"))).toBe(false);
  });
});

describe("a --db that is not a workspace", () => {
  it("exits 2 with the file's name, as a bad argument", () => {
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, "this is a text file, not a database\n".repeat(40));
    for (const args of [["report", "--db", notes], ["adapters", "list", "--db", notes]]) {
      const result = spade(args);
      expect(result.status, `${args.join(" ")}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(`cannot open workspace database ${notes}: the file is not a SQLite database`);
    }
  });
});
