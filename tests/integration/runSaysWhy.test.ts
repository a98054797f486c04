// A run that cannot work says so at once on the command line: the report's diagnosis as soon as
// the first iteration ends without a valid attempt, and a context above the model's trained one.
// Real inference on stories260K (it writes stories, never code).
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startCli } from "../support/startCli.js";

const model = "/work/shared/models/stories260K.gguf";

describe.skipIf(!existsSync(model))("spade run: a run that cannot work says why at once", () => {
  it("prints the diagnosis after the first iteration and warns of a context above the trained one, naming both numbers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-why-"));
    const config = join(dir, "run.json");
    writeFileSync(config, JSON.stringify({
      db: "w.sqlite", seed: 1, iterations: 2, envsPerIteration: 2, plays: 1, hintPlays: 1, maxTurns: 2,
      backend: { kind: "llama", modelPath: model, contextSize: 3000 },
      corpus: null,
      designer: { attempts: 1, maxTokens: 48 },
    }));
    const result = await startCli(["run", "--config", config]).done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/note: the context holds 3000 tokens, above the 2048 tokens llama:stories260K\.gguf was trained on/);
    const lines = result.stderr.split("\n");
    const diagnosis = lines.findIndex((line) => line.startsWith("diagnosis: "));
    const second = lines.findIndex((line) => /^iteration 1 of 2 done/.test(line));
    expect(diagnosis, result.stderr).toBeGreaterThan(-1);
    expect(lines[diagnosis]).toMatch(/^diagnosis: 2 of 2 designer prompts did not fit the model.s context \(\d+ > 3000 tokens\)/);
    expect(diagnosis).toBeLessThan(second); // at once: before the run goes on
    // Said once, not after every iteration.
    expect(lines.filter((line) => line.startsWith("diagnosis: "))).toHaveLength(1);
  }, 120_000);
});
