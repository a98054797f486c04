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
