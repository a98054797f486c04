import { describe, expect, it } from "vitest";
import { parseRoute, routes } from "../../../renderer/src/lib/router/parseRoute.js";
import { filterFromQuery, queryFromFilter } from "../../../renderer/src/features/environments/lib/filterFromQuery.js";
import { validationMarkers } from "../../../renderer/src/features/environments/lib/validationMarkers.js";
import { buildRunConfig, defaultRunForm } from "../../../renderer/src/features/runs/lib/buildRunConfig.js";
import { checkRunForm, fieldOfConfigError } from "../../../renderer/src/features/runs/lib/checkRunForm.js";

describe("hash routes", () => {
  it("parses the exact routes", () => {
    expect(parseRoute("")).toEqual({ name: "runs" });
    expect(parseRoute("#/runs")).toEqual({ name: "runs" });
    expect(parseRoute("#/runs/12")).toEqual({ name: "run", runId: 12 });
    expect(parseRoute("#/envs/7")).toEqual({ name: "env", envId: 7 });
    expect(parseRoute("#/episodes/3")).toEqual({ name: "episode", episodeId: 3 });
    expect(parseRoute("#/compare?runs=1,2,x,2")).toEqual({ name: "compare", runIds: [1, 2] });
    expect(parseRoute("#/corpus/wiki%3A3")).toEqual({ name: "corpus", documentId: "wiki:3" });
    expect(parseRoute("#/settings").name).toBe("settings");
    expect(parseRoute("#/runs/abc").name).toBe("notFound");
    expect(parseRoute("#/runs/0").name).toBe("notFound");
  });

  it("builds the links the parser reads back", () => {
    expect(parseRoute(routes.compare([4, 5]))).toEqual({ name: "compare", runIds: [4, 5] });
    expect(parseRoute(routes.corpus("a/b:1"))).toEqual({ name: "corpus", documentId: "a/b:1" });
    expect(routes.envs({ run: 1, q: "" })).toBe("#/envs?run=1");
    expect(parseRoute(routes.models(3))).toEqual({ name: "models", adapterId: 3 });
    expect(parseRoute("#/models")).toEqual({ name: "models", adapterId: null });
    expect(parseRoute(routes.cloneRun(4))).toEqual({ name: "runs", cloneFrom: 4 });
    expect(parseRoute(routes.fixedPoolRun("my set"))).toEqual({ name: "runs", fixedSet: "my set" });
  });
});

describe("environment filters in the URL", () => {
  it("reads valid values and ignores malformed ones", () => {
    const filter = filterFromQuery(new URLSearchParams("run=2&valid=false&regretMin=0.1&winRateMax=abc&q=Maze&order=regret&iteration=-1"));
    expect(filter).toEqual({ runId: 2, valid: false, regretMin: 0.1, text: "Maze", order: "regret" });
    expect(filterFromQuery(new URLSearchParams(new URLSearchParams(queryFromFilter(filter) as Record<string, string>).toString().replace(/=undefined/g, "=")))).toEqual(filter);
  });
});

describe("validation markers", () => {
  it("puts failing checks on their line (clamped), or on line 1 when no line is known", () => {
    const markers = validationMarkers(
      { valid: false, className: null, error: "x", durationMs: 1, checks: [{ name: "ok", ok: true, detail: "" }, { name: "reset", ok: false, detail: "bad", line: 40 }, { name: "step", ok: false, detail: "worse" }] },
      10,
    );
    expect(markers).toEqual([
      { line: 10, message: "reset: bad", severity: "error" },
      { line: 1, message: "step: worse", severity: "error" },
    ]);
    expect(validationMarkers(null, 3)).toEqual([]);
  });
});

describe("start-run form", () => {
  it("builds the loop config, merging the extra JSON over the fields", () => {
    const config = buildRunConfig({ ...defaultRunForm, modelPath: "m.gguf", corpusPath: "", extra: '{"memory": {"capacity": 50}, "canary": false}' });
    expect(config).toMatchObject({ seed: 1, backend: { kind: "llama", modelPath: "m.gguf" }, corpus: null, memory: { enabled: true, capacity: 50 }, canary: false, designer: { kind: "llm" } });
    expect(checkRunForm({ ...defaultRunForm, modelPath: "m.gguf" })).toHaveProperty("config");
  });

  it("checks the config with the engine's parser and names the form field at fault", () => {
    expect(checkRunForm({ ...defaultRunForm, modelPath: "m.gguf", plays: "two" })).toEqual({ problem: { field: "plays", message: expect.stringMatching(/^run config: plays: expected .*"two"/) } });
    expect(checkRunForm(defaultRunForm)).toMatchObject({ problem: { field: "modelPath", message: expect.stringContaining("backend.modelPath") } });
    expect(checkRunForm({ ...defaultRunForm, backendKind: "openai", model: "" })).toMatchObject({ problem: { field: "model" } });
    expect(checkRunForm({ ...defaultRunForm, modelPath: "m.gguf", designerKind: "fixed" })).toMatchObject({ problem: { field: "designerSet", message: expect.stringContaining("designer.set") } });
    expect(checkRunForm({ ...defaultRunForm, modelPath: "m.gguf", extra: "[1]" })).toMatchObject({ problem: { field: "extra", message: expect.stringContaining("JSON object") } });
    expect(checkRunForm({ ...defaultRunForm, modelPath: "m.gguf", extra: '{"agent": {"temprature": 1}}' })).toMatchObject({ problem: { field: "extra", message: expect.stringContaining("agent.temprature: unknown key") } });
  });

  it("places the engine's errors too", () => {
    expect(fieldOfConfigError("startRun config: corpus.path: expected a non-empty string, got \"\"")).toBe("corpusPath");
    expect(fieldOfConfigError("startRun config: backend.threads: expected a positive integer")).toBe("backendKind");
    expect(fieldOfConfigError("something else went wrong")).toBe("extra");
  });
});
