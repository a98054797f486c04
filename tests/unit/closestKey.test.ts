import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { closestKey } from "../../shared/validation/closestKey.js";

describe("closestKey", () => {
  it("finds the key a typo meant, and nothing for a word far from every key", () => {
    expect(closestKey("desinger", ["designer", "backend", "corpus"])).toBe("designer");
    expect(closestKey("regenerationIntervall", ["regenerationInterval", "iterations"])).toBe("regenerationInterval");
    expect(closestKey("HintPlays", ["hintPlays", "plays"])).toBe("hintPlays");
    expect(closestKey("colour", ["seed", "plays"])).toBeNull();
    expect(closestKey("ab", ["cd"])).toBeNull();
  });

  it("a run config with a typo'd key says which key it meant", () => {
    expect(() => parseRunConfig({ db: "w.sqlite", seed: 1, itrations: 2, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null }, "run.json")).toThrow(/^run\.json: itrations: unknown key; did you mean "iterations"\? \(known keys: /);
    expect(() => parseRunConfig({ db: "w.sqlite", seed: 1, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m", modle: "m" }, corpus: null }, "run.json")).toThrow(/backend\.modle: unknown key; did you mean "model"\?/);
  });
});
