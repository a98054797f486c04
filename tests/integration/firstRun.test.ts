// The README's first run, end to end with the CLI: `spade envs import` of resources/environments
// into the set "examples", then `spade run` on resources/examples/first-run.json (a fixed-pool run:
// no designer calls, works offline) with the model swapped for stories260K and the budgets cut so
// it finishes in seconds; `spade report` then lists the bundled environments and their plays.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";

const root = join(import.meta.dirname, "..", "..");
const cli = join(root, "out", "engine", "main", "cli", "spade.js");
const model = "/work/shared/models/stories260K.gguf";
const example = join(root, "resources", "examples", "first-run.json");
const dir = mkdtempSync(join(tmpdir(), "spade-firstrun-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function spade(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: "utf8", timeout: 300_000 });
}

describe("the shipped first-run config", () => {
  it("is a valid run config: a fixed pool of the set the README imports, no corpus, models beside the workspace", () => {
    const raw = JSON.parse(readFileSync(example, "utf8")) as Record<string, unknown>;
    const config = parseRunConfig(raw, example);
    expect(config.designer).toMatchObject({ kind: "fixed", set: "examples" });
    expect(config.corpus).toBeNull();
    expect(config.db).toBe("workspace.sqlite");
    expect(config.backend).toMatchObject({ kind: "llama", modelsDir: "models" });
    expect((config.backend as { modelPath: string }).modelPath).toMatch(/^hf:/);
  });
});

describe.skipIf(!existsSync(cli) || !existsSync(model))("the first run, end to end", () => {
  it("imports the bundled environments and completes a fixed-pool run on them", () => {
    const db = join(dir, "workspace.sqlite");
    const bundled = join(root, "resources", "environments");
    const files = readdirSync(bundled).filter((name) => name.endsWith(".py"));
    const classNames = files.map((name) => /^class (\w+Env)\b/m.exec(readFileSync(join(bundled, name), "utf8"))?.[1]);
    const imported = spade(["envs", "import", "--db", db, "--in", join(root, "resources", "environments"), "--set", "examples", "--json"]);
    expect(imported.status, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ imported: files.length });

    const config = JSON.parse(readFileSync(example, "utf8")) as Record<string, unknown> & { backend: Record<string, unknown> };
    const quick = { ...config, iterations: 1, envsPerIteration: 2, plays: 2, hintPlays: 1, maxTurns: 2, agent: { maxTokens: 12 }, hint: { maxTokens: 12 }, backend: { ...config.backend, modelPath: model, threads: 1, gpu: false } };
    writeFileSync(join(dir, "first-run.json"), JSON.stringify(quick));
    const run = spade(["run", "--config", join(dir, "first-run.json")]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/iteration 0 of 1 done: validity 100%/);

    const report = spade(["report", "--db", db, "--json"]);
    expect(report.status, report.stderr).toBe(0);
    const runs = (JSON.parse(report.stdout) as { runs: { status: string; environments: { className: string | null; valid: boolean; episodes: unknown[] }[] }[] }).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe("completed");
    expect(runs[0]!.environments).toHaveLength(2);
    for (const env of runs[0]!.environments) {
      expect(classNames).toContain(env.className);
      expect(env.valid).toBe(true);
      expect(env.episodes.length).toBeGreaterThanOrEqual(2);
    }
  }, 300_000);
});
