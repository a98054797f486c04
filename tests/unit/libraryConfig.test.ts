// The library block of a run config (designer.kind "library"), the RLVE baseline's recipe, and the
// baseline label every run list, report and comparison shows.
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { describeAblations, describeBaseline } from "../../main/selfplay/describeAblations.js";

const base = { db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:1/v1", model: "m" }, corpus: null };
const parse = (extra: Record<string, unknown>) => parseRunConfig({ ...base, ...extra }, "run.json");

describe("designer.library", () => {
  it("takes RLVE's official16 set and the launchers' controller by default, and reads back as itself", () => {
    const config = parse({ recipe: "fixed-rlve", designer: { kind: "library", library: { kind: "rlve", path: "rlve/Gym" } } });
    expect(config.designer.library).toEqual({ kind: "rlve", path: "rlve/Gym", set: "official16", controller: { tauAcc: 0.9, tauNum: 128, dDelta: 4, maxDifficulty: 20 }, python: null, memoryMb: 4096, loadTimeoutMs: 120000 });
    expect(parseRunConfig(JSON.parse(JSON.stringify(config)), "stored")).toEqual(config);
    // The reference's fixed-RLVE launcher: 16 environments a rollout, a new problem every rollout, 16 plays, no hints, temperature 1.0.
    expect(config).toMatchObject({ envsPerIteration: 16, plays: 16, hintPlays: 0, regenerationInterval: 1, agent: { temperature: 1 } });
  });

  it("plays the environments the reference's fixed-environment rollout plays: 16 of official16, 20 of all", () => {
    // fixed_env_rollout.py asks for int(256 * 1.25) + 2 = 322 trajectories, 322 // 16 = 20 environments, all of a smaller set.
    const rlve = (library: Record<string, unknown>, extra: Record<string, unknown> = {}) => parse({ recipe: "fixed-rlve", designer: { kind: "library", library: { kind: "rlve", path: "G", ...library } }, ...extra });
    expect(rlve({ set: "official16" }).envsPerIteration).toBe(16);
    expect(rlve({ set: "all" })).toMatchObject({ envsPerIteration: 20, plays: 16, actorBatch: 256 });
    expect(rlve({ set: ["Sorting", "SAT"] }).envsPerIteration).toBe(2);
    expect(rlve({ set: "all" }, { plays: 4 }).envsPerIteration).toBe(80);
    expect(rlve({ set: "all" }, { envsPerIteration: 7 }).envsPerIteration).toBe(7);
  });

  it("is RLVE for the recipe alone, or refused: never LLM-designed games under the baseline's name", () => {
    expect(() => parse({ recipe: "fixed-rlve" })).toThrow(/run\.json: designer\.library: recipe "fixed-rlve" plays an environment library \(RLVE\).*got designer\.kind "llm"/);
    expect(() => parse({ recipe: "fixed-rlve-8b", designer: { kind: "fixed", set: "s" } })).toThrow(/recipe "fixed-rlve-8b" plays an environment library/);
  });

  it("has the 8B RLVE launcher's thinking (train_fixed_rlve_8b.sh: enable_thinking true) and nothing else different", () => {
    const library = { kind: "library", library: { kind: "rlve", path: "G" } };
    const eight = parse({ recipe: "fixed-rlve-8b", designer: library });
    const four = parse({ recipe: "fixed-rlve", designer: library });
    expect(eight.agent.thinking).toBe("on");
    expect(four.agent.thinking).toBe("off");
    expect({ ...eight, recipe: four.recipe, agent: { ...eight.agent, thinking: "off" } }).toEqual(four);
  });

  it("refuses what cannot work, naming the key", () => {
    expect(() => parse({ designer: { kind: "library" } })).toThrow(/run\.json: designer\.library: required when designer\.kind is "library"/);
    expect(() => parse({ designer: { kind: "library", library: { kind: "rlve" } } })).toThrow(/designer\.library\.path: required for RLVE/);
    expect(() => parse({ designer: { kind: "library", library: { kind: "gem" } } })).toThrow(/designer\.library\.set: expected a list of GEM environment ids/);
    expect(() => parse({ designer: { kind: "library", library: { kind: "reasoning-gym", set: "all" } } })).toThrow(/expected a list of reasoning-gym dataset names, got "all"/);
    expect(() => parse({ designer: { kind: "library", library: { kind: "rlve", path: "G", set: "some" } } })).toThrow(/designer\.library\.set: expected "official16", "all" or a non-empty list/);
    expect(() => parse({ designer: { kind: "library", library: { kind: "textarena", path: "G" } } })).toThrow(/designer\.library\.kind/);
  });

  it("labels every baseline run as one", () => {
    const rlve = parse({ designer: { kind: "library", library: { kind: "rlve", path: "G" } } });
    expect(describeBaseline(rlve)).toBe("baseline: RLVE official16 (sliding window, 128 plays at 0.9)");
    expect(describeAblations(rlve)[0]).toBe(describeBaseline(rlve));
    // A baseline has no designer side: no corpus, memory or designer-reward badges beside its own.
    expect(describeAblations(rlve).filter((badge) => !badge.startsWith("deviation: LoRA"))).toEqual([describeBaseline(rlve)]);
    expect(describeBaseline(parse({ designer: { kind: "fixed", set: "gpt55" } }))).toBe('baseline: static pool "gpt55"');
    expect(describeBaseline(parse({ designer: { kind: "library", library: { kind: "gem", set: ["game:Sudoku-v0"] } } }))).toBe("baseline: GEM game:Sudoku-v0");
    expect(describeBaseline(parse({}))).toBeNull();
  });
});
