// The 8B games launcher (cmd/games/train_spade_8b.sh) as the recipe "spade-games-8b".
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { recipeDefaults } from "../../shared/runRecipes.js";
import { describeAblations } from "../../main/selfplay/describeAblations.js";

const base = { db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null };
const parse = (extra: Record<string, unknown> = {}) => parseRunConfig({ ...base, ...extra }, "run.json");

describe("the spade-games-8b recipe", () => {
  it("is the games recipe with thinking on for the designer and the agent, 20000 designer tokens and KL 0.005", () => {
    const c = parse({ recipe: "spade-games-8b", training: { every: 1 } });
    expect(c.recipe).toBe("spade-games-8b");
    expect(c.designer).toMatchObject({ maxTokens: 20000, thinking: "on", temperature: 0.6, attempts: 5 });
    expect(c.agent).toMatchObject({ thinking: "on", maxTokens: 8192, temperature: 0.6, topP: 0.95, topK: 20 });
    expect(c.hint).toMatchObject({ thinking: "off", temperature: 0.3, maxTokens: 4096 });
    expect(c.training!.hyper.klCoef).toBe(0.005);
    // Everything else is the games launchers' schedule.
    const games = parse({ training: { every: 1 } });
    expect([c.iterations, c.envsPerIteration, c.plays, c.hintPlays, c.maxTurns, c.regenerationInterval, c.skillsPerRegen]).toEqual([games.iterations, games.envsPerIteration, games.plays, games.hintPlays, games.maxTurns, games.regenerationInterval, games.skillsPerRegen]);
    expect(c.reward).toEqual(games.reward);
    expect(c.designer.skills).toEqual(games.designer.skills);
    expect(describeAblations(c).filter((badge) => !badge.startsWith("deviation: LoRA"))).toEqual(["no corpus"]);
  });

  it("leaves the other recipes as they were: thinking off, 16384 designer tokens, KL 0 (0.005 for tool use, its launcher's)", () => {
    for (const [recipe, kl] of [["spade-games", 0], ["spade-tool-use", 0.005]] as const) {
      const c = parse({ recipe, training: { every: 1 } });
      expect([c.designer.thinking, c.agent.thinking, c.hint.thinking, c.designer.maxTokens, c.training!.hyper.klCoef]).toEqual(["off", "off", "off", 16384, kl]);
    }
    expect(recipeDefaults("spade-games-8b").training.hyper.klCoef).toBe(0.005);
  });

  it("lets a written key override the recipe, flat or under hyper", () => {
    const c = parse({ recipe: "spade-games-8b", designer: { thinking: "off", maxTokens: 1000 }, agent: { thinking: "auto" }, training: { every: 1, klCoef: 0 } });
    expect([c.designer.thinking, c.designer.maxTokens, c.agent.thinking, c.training!.hyper.klCoef]).toEqual(["off", 1000, "auto", 0]);
    expect(parse({ recipe: "spade-games-8b", training: { every: 1, hyper: { klCoef: 0.01 } } }).training!.hyper.klCoef).toBe(0.01);
    // A parsed config reads back as itself.
    const stored = parse({ recipe: "spade-games-8b", training: { every: 2 } });
    expect(parseRunConfig(stored, "stored")).toEqual(stored);
    expect(() => parse({ recipe: "spade-games-9b" })).toThrow(/recipe/);
  });
});
