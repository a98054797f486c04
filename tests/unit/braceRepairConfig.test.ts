import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";

const base = { db: "w.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 4, hintPlays: 4, maxTurns: 5, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null };

describe("designer.repairBraces", () => {
  it("is on by default, as in the reference, can be turned off, and is refused when not a boolean", () => {
    expect(parseRunConfig(base, "run.json").designer.repairBraces).toBe(true);
    expect(parseRunConfig({ ...base, designer: { repairBraces: false } }, "run.json").designer.repairBraces).toBe(false);
    expect(() => parseRunConfig({ ...base, designer: { repairBraces: "yes" } }, "run.json")).toThrow(/designer\.repairBraces/);
  });
});
