// The 4B tool-use arm (cmd/tool_use/train_spade_4b.sh) as the recipe "spade-tool-use-4b".
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { describeAblations } from "../../main/selfplay/describeAblations.js";
import { playsPerGame } from "../../main/selfplay/rolloutSchedule.js";

const base = { db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: { path: "c.jsonl" } };
const parse = (extra: Record<string, unknown> = {}) => parseRunConfig({ ...base, ...extra }, "run.json");

describe("the spade-tool-use-4b recipe", () => {
  it("is the launcher's: regret_based, interval and delay 32, 16 games, batch 256, rollout temperature 0.7, hint 512 tokens, 4 hint plays, KL 0.005", () => {
    const c = parse({ recipe: "spade-tool-use-4b", training: { every: 1 } });
    expect(c).toMatchObject({ iterations: 500, envsPerIteration: 16, actorBatch: 256, plays: null, hintPlays: 4, maxTurns: 25, regenerationInterval: 32, skillsPerRegen: null });
    // ceil(256 / 16 games) = 16 plays a game, as the launcher's trajectories per game.
    expect(playsPerGame(c, 16)).toBe(16);
    expect(c.reward).toMatchObject({ kind: "regret", proposerDelay: 32, scale: "auto" });
    expect(c.hint).toMatchObject({ temperature: 0.3, maxTokens: 512 });
    expect(c.agent).toMatchObject({ temperature: 0.6, maskMalformedToolCalls: true });
    expect(c.designer).toMatchObject({ toolUse: true, maxTokens: 16384, temperature: 0.6 });
    expect(c.training).toMatchObject({ compactFilter: true, hyper: { klCoef: 0.005, rolloutTemperature: 0.7, learningRate: 1e-6 } });
    // The recipe's own values are no ablation or deviation of it.
    expect(describeAblations(c).filter((badge) => !badge.startsWith("deviation: LoRA"))).toEqual([]);
  });

  it("badges what a config changes against it, and leaves the blend recipes' badges as they were", () => {
    expect(describeAblations(parse({ recipe: "spade-tool-use-4b", reward: { kind: "blend" }, training: { every: 1, rolloutTemperature: 1 } })).filter((badge) => !badge.startsWith("deviation: LoRA"))).toEqual([
      "reward: blend",
      "deviation: log-prob temperature 1 (recipe: 0.7)",
    ]);
    expect(describeAblations(parse({ recipe: "spade-tool-use", reward: { kind: "regret" }, training: { every: 1 } })).filter((badge) => !badge.startsWith("deviation: LoRA"))).toEqual(["reward: regret"]);
    expect(parse({ recipe: "spade-tool-use" }).reward.kind).toBe("blend");
  });
});
