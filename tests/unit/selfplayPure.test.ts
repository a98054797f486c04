import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { plateauScore } from "../../main/selfplay/designerReward.js";
import { computeEnvStatistics } from "../../main/selfplay/envStatistics.js";
import { extractPythonCode } from "../../main/selfplay/extractCode.js";
import { judgeNovelty } from "../../main/selfplay/judgeNovelty.js";
import { selectMemoryReferences, type MemoryCandidate } from "../../main/selfplay/selectMemoryReferences.js";
import { hintLeaksSolution, tidyHint } from "../../main/selfplay/writeHint.js";
import { PLAYS_PER_CORE, validationsAtOnce } from "../../main/selfplay/validationsAtOnce.js";

const baseConfig = { db: "w.sqlite", seed: 1, iterations: 1, envsPerIteration: 1, plays: 4, hintPlays: 4, maxTurns: 5, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null };

describe("computeEnvStatistics", () => {
  it("computes win rates, means and the floored regret", () => {
    const stats = computeEnvStatistics([
      { hinted: false, return: 1 }, { hinted: false, return: 0 }, { hinted: false, return: 0.5 }, { hinted: false, return: -0.5 },
      { hinted: true, return: 1 }, { hinted: true, return: 1 },
    ]);
    expect(stats).toEqual({ plays: 4, hintPlays: 2, winRate: 0.5, hintWinRate: 1, meanReturn: 0.25, hintMeanReturn: 1, regret: 0.75 });
    expect(computeEnvStatistics([{ hinted: false, return: 1 }, { hinted: true, return: 0 }]).regret).toBe(0);
    expect(computeEnvStatistics([{ hinted: false, return: 1 }]).regret).toBeNull();
  });
});

describe("plateauScore", () => {
  it("is 1 on [0.4, 0.6] and ramps over 0.25", () => {
    expect(plateauScore(0.4, [0.4, 0.6], 0.25)).toBe(1);
    expect(plateauScore(0.7, [0.4, 0.6], 0.25)).toBeCloseTo(0.6);
    expect(plateauScore(0.1, [0.4, 0.6], 0.25)).toBe(0);
  });
});

describe("selectMemoryReferences", () => {
  const entry = (environmentId: number, skill: string, winRate: number, regret: number): MemoryCandidate => ({ environmentId, skill, className: `E${environmentId}Env`, codeExcerpt: "", winRate, regret });
  it("draws from same-skill learnable entries sorted by regret, and names one extreme", () => {
    const entries = [entry(1, "Planning", 0.5, 0.1), entry(2, "Planning", 0.95, 0.9), entry(3, "Logic", 0.5, 0.9), entry(4, "Planning", 0.2, 0.3), entry(5, "Planning", 0.05, 0)];
    const selection = selectMemoryReferences(entries, "Planning", 2, () => 0);
    expect(selection.references.map((r) => r.environmentId).sort()).toEqual([1, 4]);
    expect(selection.negative?.entry.environmentId).toBe(2);
    expect(selection.negative?.reason).toBe("too easy");
  });
  it("draws only from the top max(3n, 10) by regret", () => {
    const entries = Array.from({ length: 30 }, (_, i) => entry(i + 1, "S", 0.5, i / 100));
    const seen = new Set<number>();
    for (let k = 0; k < 50; k++) {
      let state = k + 1;
      const random = () => ((state = (state * 16807) % 2147483647) / 2147483647);
      for (const ref of selectMemoryReferences(entries, "S", 2, random).references) seen.add(ref.environmentId);
    }
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(21);
  });
});

describe("judgeNovelty", () => {
  const code = `import random\nclass MazeEnv:\n    def reset(self, seed=None):\n        self.rng = random.Random(seed)\n        self.pos = 0\n        return "You are at 0", {}\n    def step(self, action):\n        self.pos += 1\n        return "at " + str(self.pos), 0.0, self.pos > 3, False, {}\n`;
  it("catches a renamed copy and passes a different environment", () => {
    const renamed = code.replaceAll("MazeEnv", "LabyrinthEnv").replaceAll("pos", "where");
    const other = `class NimEnv:\n    def reset(self, seed=None):\n        self.heaps = [3, 4, 5]\n        return "heaps 3 4 5", {}\n    def step(self, action):\n        import re\n        m = re.search(r"(\\d+) (\\d+)", action)\n        return "ok", 1.0, True, False, {"m": bool(m)}\n`;
    const references = [{ environmentId: 9, code, observation: "You are at 0" }];
    const thresholds = { codeSimilarity: 0.85, observationSimilarity: 0.9 };
    expect(judgeNovelty({ code: renamed, observation: "You are at 0" }, references, thresholds)).toMatchObject({ novel: false, duplicateOf: 9 });
    expect(judgeNovelty({ code: other, observation: "heaps 3 4 5" }, references, thresholds)).toMatchObject({ novel: true, duplicateOf: null });
    expect(judgeNovelty({ code: other, observation: "x", embedding: [1, 0] }, [{ ...references[0]!, embedding: [1, 0.01] }], thresholds).novel).toBe(false);
  });
});

describe("extractPythonCode", () => {
  it("takes the first python block (the last one on request), else any block, else an unterminated block", () => {
    expect(extractPythonCode("a\n```python\nx = 1\n```\nb\n```python\ny = 2\n```")).toBe("x = 1\n");
    expect(extractPythonCode("a\n```python\nx = 1\n```\nb\n```python\ny = 2\n```", { block: "last" })).toBe("y = 2\n");
    expect(extractPythonCode("```\nz = 3\n```")).toBe("z = 3\n");
    expect(extractPythonCode("text\n```python\nclass AEnv:\n    pass")).toBe("class AEnv:\n    pass\n");
    expect(extractPythonCode("no code here")).toBeNull();
  });
});

describe("hints", () => {
  it("keeps three sentences and spots a leaked solution", () => {
    expect(tidyHint("HINT: One. Two! Three? Four.")).toBe("One. Two! Three?");
    expect(hintLeaksSolution("Just type \\boxed{open door} first", "open door")).toBe(true);
    expect(hintLeaksSolution("Explore before acting.", "open door")).toBe(false);
  });
});

describe("parseRunConfig", () => {
  it("applies the documented defaults", () => {
    const config = parseRunConfig(baseConfig, "run.json");
    expect(config.recipe).toBe("spade-games");
    expect(config.designer.attempts).toBe(5);
    expect(config.reward.kind).toBe("blend");
    expect(config.memory.capacity).toBe(200);
    expect(config.corpus).toBeNull();
  });
  it("names the unknown key, the wrong type and the missing key", () => {
    expect(() => parseRunConfig({ ...baseConfig, plyas: 3 }, "run.json")).toThrow(/run\.json: plyas: unknown key/);
    expect(() => parseRunConfig({ ...baseConfig, plays: "8" }, "run.json")).toThrow(/run\.json: plays: expected an integer >= 1, got "8"/);
    expect(() => parseRunConfig({ ...baseConfig, reward: { kind: "best" } }, "run.json")).toThrow(/reward\.kind: expected one of/);
    const { db: _db, ...noDb } = baseConfig;
    expect(() => parseRunConfig(noDb, "run.json")).toThrow(/run\.json: db: required key is missing/);
    expect(() => parseRunConfig({ ...baseConfig, designer: { kind: "fixed" } }, "run.json")).toThrow(/designer\.set: required/);
  });
});

describe("parseRunConfig round trip", () => {
  it("reads a parsed config back as itself (runs store their config)", () => {
    const config = parseRunConfig({ ...baseConfig, corpus: { path: "c.jsonl" }, designer: { attempts: 2 } }, "run.json");
    expect(parseRunConfig(JSON.parse(JSON.stringify(config)), "stored")).toEqual(config);
  });
});

describe("validationsAtOnce", () => {
  it("validates as many games at once as there are cores while the cores can feed the server's slots, else all at once", () => {
    expect(validationsAtOnce(2, 16)).toBe(2);
    expect(validationsAtOnce(2, PLAYS_PER_CORE * 2)).toBe(2);
    expect(validationsAtOnce(2, PLAYS_PER_CORE * 2 + 1)).toBe(Number.MAX_SAFE_INTEGER);
    expect(validationsAtOnce(2, 64)).toBe(Number.MAX_SAFE_INTEGER);
    expect(validationsAtOnce(16, 64)).toBe(16);
    expect(validationsAtOnce(0, 1)).toBe(1);
  });
});
