import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseBackendConfig } from "../../shared/backendConfig.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { exampleConfigSchemaPath, exampleConfigSchemaRef, runConfigJsonSchema, runConfigJsonSchemaText, runConfigSchemaPath } from "../../shared/runConfigJsonSchema.js";
import { parseTrainingConfig } from "../../shared/trainingConfig.js";

const root = join(import.meta.dirname, "..", "..");
const base = { db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null };

describe("the run config's JSON Schema", () => {
  it("is committed as the zod schema generates it, also beside the examples (run `npm run schema` after changing a config key)", () => {
    expect(readFileSync(join(root, runConfigSchemaPath), "utf8")).toBe(runConfigJsonSchemaText());
    expect(readFileSync(join(root, exampleConfigSchemaPath), "utf8")).toBe(runConfigJsonSchemaText());
  });

  it("describes the keys a user writes, refuses unknown ones, and requires db, backend and corpus", () => {
    const schema = runConfigJsonSchema() as { properties: Record<string, { description?: string }>; required: string[]; additionalProperties: unknown };
    expect(schema.required.sort()).toEqual(["backend", "corpus", "db"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["$schema", "recipe", "plays", "designer", "training", "trainer"]));
    expect(schema.properties.plays?.description).toMatch(/Unhinted plays/);
    expect(JSON.stringify(schema)).not.toContain('"expected"');
  });

  it("is named by every example config, which parses", () => {
    const folder = join(root, "resources", "examples");
    const examples = readdirSync(folder).filter((name) => name.endsWith(".json") && !name.endsWith(".schema.json"));
    expect(examples.length).toBeGreaterThan(0);
    for (const name of examples) {
      const config = JSON.parse(readFileSync(join(folder, name), "utf8")) as Record<string, unknown>;
      expect(config.$schema).toBe(exampleConfigSchemaRef);
      expect(parseRunConfig(config, name)).not.toHaveProperty("$schema");
    }
  });

  it("resolves from an example copied where the README's first-run step copies it", () => {
    // The README's own command, run with a temporary HOME.
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const copy = readme.split("\n").find((line) => /^cp resources\/examples\/first-run\.json\b.*~\/\.spade-workbench\/$/.test(line));
    expect(copy, "the README's first-run copy command").toBeDefined();
    const home = mkdtempSync(join(tmpdir(), "spade-home-"));
    try {
      mkdirSync(join(home, ".spade-workbench"));
      const result = spawnSync("bash", ["-c", copy!], { cwd: root, env: { ...process.env, HOME: home }, encoding: "utf8" });
      expect(result.status, result.stderr).toBe(0);
      const copied = join(home, ".spade-workbench", "first-run.json");
      const config = JSON.parse(readFileSync(copied, "utf8")) as Record<string, unknown>;
      expect(() => parseRunConfig(config, copied)).not.toThrow();
      // An editor resolves "$schema" against the config's folder: the file is there and is the run config's schema.
      const schemaFile = resolve(dirname(copied), config.$schema as string);
      expect(existsSync(schemaFile), schemaFile).toBe(true);
      const schema = JSON.parse(readFileSync(schemaFile, "utf8")) as { title: string; properties: Record<string, unknown> };
      expect(schema.title).toBe("SPADE Workbench run config");
      for (const key of Object.keys(config)) expect(schema.properties, key).toHaveProperty([key]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("run config parsing", () => {
  it('accepts a top-level "$schema" and leaves it out of the parsed config, which reads back as itself', () => {
    const parsed = parseRunConfig({ ...base, $schema: "../schemas/run-config.schema.json", designer: null, agent: { historyTurns: null } }, "run.json");
    expect(parsed).not.toHaveProperty("$schema");
    expect(parsed.agent.historyTurns).toBeNull();
    expect(parseRunConfig(JSON.parse(JSON.stringify(parsed)), "stored")).toEqual(parsed);
    expect(() => parseRunConfig({ ...base, $schema: 3 }, "run.json")).toThrow(/run\.json: \$schema: expected a string/);
  });

  it("fills the recipe's defaults in code after checking the shape", () => {
    const games = parseRunConfig(base, "run.json");
    const toolUse = parseRunConfig({ ...base, recipe: "spade-tool-use" }, "run.json");
    expect([games.regenerationInterval, games.skillsPerRegen, games.reward.scale, games.designer.toolUse]).toEqual([4, 3, "auto", false]);
    expect([toolUse.regenerationInterval, toolUse.skillsPerRegen, toolUse.reward.scale, toolUse.designer.toolUse]).toEqual([8, null, "auto", true]);
    expect(parseRunConfig({ ...base, designer: { skills: ["a", "b"] }, skillsPerRegen: 2 }, "run.json").skillsPerRegen).toBe(2);
  });

  it("keeps the rules across fields, by key", () => {
    expect(() => parseRunConfig({ ...base, skillsPerRegen: 7 }, "run.json")).toThrow("run.json: skillsPerRegen: expected an integer in [1, 6], got 7");
    expect(() => parseRunConfig({ ...base, reward: { plateau: [0.6, 0.4] } }, "run.json")).toThrow("run.json: reward.plateau[1]: expected a number in [0.6, 1], got 0.4");
    expect(() => parseRunConfig({ ...base, reward: { plateau: [0.4] } }, "run.json")).toThrow("run.json: reward.plateau: expected [low, high], got [0.4]");
    expect(() => parseRunConfig({ ...base, reward: { lpSlowGamma: 0.99 } }, "run.json")).toThrow("run.json: reward.lpFastGamma: expected a number above reward.lpSlowGamma (0.99), got 0.98");
    expect(() => parseRunConfig({ ...base, trainer: { command: "t", formats: ["grpo", "grpo"] } }, "run.json")).toThrow('run.json: trainer.formats: each format may appear once, got ["grpo","grpo"]');
    expect(() => parseTrainingConfig("run.json", { every: 1, roles: ["agent", "agent"] })).toThrow('run.json: training.roles: each role may appear once, got ["agent","agent"]');
    expect(() => parseTrainingConfig("run.json", { every: 1, hyper: { rank: 2 }, rank: 3 })).toThrow("run.json: training.rank: give hyperparameters either flat or under training.hyper, not both");
  });

  it("names the key inside a union: the option meant by the value's type or discriminator", () => {
    expect(() => parseRunConfig({ ...base, trainer: { command: 5 } }, "run.json")).toThrow("run.json: trainer.command: expected an argv array or a shell command string, got 5");
    expect(() => parseRunConfig({ ...base, trainer: { command: ["python", ""] } }, "run.json")).toThrow(/run\.json: trainer\.command\[1\]: expected a non-empty string/);
    expect(() => parseTrainingConfig("run.json", { every: 1, trainer: { command: ["t"], cwd: "" } })).toThrow(/training\.trainer\.cwd: expected a non-empty string/);
    expect(() => parseBackendConfig({ kind: "vllm" }, "c.json")).toThrow('c.json: backend.kind: expected one of "llama", "openai", got "vllm"');
    expect(() => parseBackendConfig({ kind: "llama", modelPath: "m", gpu: "rocm" }, "c.json", "eval.backend")).toThrow(/^c\.json: eval\.backend\.gpu: /);
    expect(() => parseRunConfig({ ...base, backend: undefined }, "run.json")).toThrow("run.json: backend: required key is missing");
  });
});

describe("sandbox.playsPerProcess", () => {
  it("defaults to 4 plays of one game per sandbox process, reaches the pool's sizing, and refuses a count below 1 naming the key", async () => {
    const { sandboxPoolSizing } = await import("../../main/selfplay/RunController.js");
    expect(parseRunConfig(base, "run.json").sandbox.playsPerProcess).toBe(8);
    const single = parseRunConfig({ ...base, sandbox: { playsPerProcess: 1 } }, "run.json");
    expect(sandboxPoolSizing(single, { parallelism: 16 })).toEqual({ concurrency: 25, initialProcesses: Math.max(single.envsPerIteration, 24), playsPerProcess: 1, recycleProcesses: true });
    expect(() => parseRunConfig({ ...base, sandbox: { playsPerProcess: 0 } }, "run.json")).toThrow(/run\.json: sandbox\.playsPerProcess: expected an integer in \[1, 64\], got 0/);
  });
});

describe("sandbox.recycleProcesses", () => {
  it("defaults to recycling sandbox processes, reaches the pool's options, and refuses a value that is not a boolean naming the key", async () => {
    const { sandboxPoolSizing } = await import("../../main/selfplay/RunController.js");
    expect(parseRunConfig(base, "run.json").sandbox.recycleProcesses).toBe(true);
    const off = parseRunConfig({ ...base, sandbox: { recycleProcesses: false } }, "run.json");
    expect(sandboxPoolSizing(off, { parallelism: 4 })).toMatchObject({ recycleProcesses: false });
    expect(() => parseRunConfig({ ...base, sandbox: { recycleProcesses: "yes" } }, "run.json")).toThrow(/run\.json: sandbox\.recycleProcesses: /);
  });
});
