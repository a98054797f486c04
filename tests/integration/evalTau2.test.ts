// tau2 as the reference runs it: tau2's own run loop in a worker of the real interpreter, here a
// stand-in of tau2's entry points (our own tiny shop domain), with the agent and the user simulator
// served to it over the engine's loopback OpenAI-compatible endpoint; pass@1 counted the reference's way.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import { evaluateSuite, suiteNeedsSandbox, suiteScore } from "../../main/eval/evaluateSuite.js";
import { passAt1 } from "../../main/eval/evaluateTau2.js";
import { readTau2Suite } from "../../main/eval/readTau2Suite.js";
import type { Tau2EvalReport } from "../../main/eval/Tau2EvalReport.js";
import { resolveTrainerPython } from "../../main/training/resolveTrainerPython.js";

const folder = resolve(import.meta.dirname, "../fixtures/evalSuites/tau2");
const suitePath = resolve(folder, "tau2-shop.json");
const python = resolveTrainerPython();

describe("a tau2 suite", () => {
  it("reads the suite with the reference's defaults and needs no sandbox", () => {
    const suite = readTau2Suite(suitePath);
    expect(suite).toMatchObject({ path: resolve(folder, "site"), dataDir: resolve(folder, "data"), tasks: [{ domain: "shop", split: "base", limit: null }], numTrials: 2, maxSteps: 10 });
    expect(suite.agent).toEqual({ temperature: 0, topP: 0.8, topK: 20, maxTokens: 16384 });
    expect(suite.user).toEqual({ temperature: 0, maxTokens: 2048 });
    expect(suiteNeedsSandbox(suitePath)).toBe(false);
  });

  it("runs tau2's loop against the engine's models and counts pass@1 over tasks x trials, errors included", async () => {
    const agent = new ScriptedBackend((request) => {
      const asked = request.messages[1]!.content;
      if (asked.includes("C3")) return "CRASH";
      const order = asked.includes("A1") ? "A1" : "Z9";
      return { text: "", toolCalls: [{ id: "call_0", name: "refund", arguments: JSON.stringify({ order_id: order }) }] };
    }, 1);
    const user = new ScriptedBackend((request) => `Please refund ${/order (\w+)/.exec(request.messages[0]!.content)![1]}.`, 1);
    const report = (await evaluateSuite(agent, { suitePath, python, userBackend: user, userSimulator: "openai gpt-4.1" })) as Tau2EvalReport;
    expect(report.kind).toBe("tau2");
    expect(report.items).toEqual([
      { id: "shop/0", passed: 2, samples: 2, errors: 0 },
      { id: "shop/1", passed: 0, samples: 2, errors: 0 },
      { id: "shop/2", passed: 0, samples: 2, errors: 2 },
    ]);
    expect(report.domains).toEqual([{ label: "shop_base", domain: "shop", split: "base", tasks: 3, simulations: 6, passed: 2, errors: 2, passAt1: 2 / 6, passAt1Clean: 0.5 }]);
    expect([report.n, report.trials, report.simulations, report.passed, report.errors]).toEqual([3, 2, 6, 2, 2]);
    expect(suiteScore(report)).toBeCloseTo(1 / 3, 12);
    expect(report.userSimulator).toBe("openai gpt-4.1");
    // The reference's sampling reached the models through the endpoint; the tool went as a native tool.
    expect(agent.calls[0]!.sampling).toMatchObject({ temperature: 0, topP: 0.8, topK: 20, maxTokens: 16384 });
    expect(agent.calls[0]!.tools!.map((t) => t.name)).toEqual(["refund"]);
    expect(user.calls[0]!.sampling).toMatchObject({ temperature: 0, maxTokens: 2048 });
    expect(user.calls).toHaveLength(6);
  }, 120_000);

  it("caps every domain's tasks at the evaluation's limit", async () => {
    const agent = new ScriptedBackend(() => ({ text: "", toolCalls: [{ id: "c", name: "refund", arguments: JSON.stringify({ order_id: "A1" }) }] }), 1);
    const report = (await evaluateSuite(agent, { suitePath, python, limit: 1 })) as Tau2EvalReport;
    expect(report.items).toEqual([{ id: "shop/0", passed: 2, samples: 2, errors: 0 }]);
    expect(report.userSimulator).toBe("the evaluated model");
  }, 120_000);

  it("counts a simulation that never came back as an error, and a reward off 1 by more than 1e-6 as a failure", () => {
    const spec = { domain: "d", split: "base", limit: null };
    const { domain, items } = passAt1(spec, 2, ["a", "b"], [
      { taskId: "a", trial: 0, termination: "user_stop", reward: 1 - 1e-7 },
      { taskId: "a", trial: 1, termination: "agent_stop", reward: 0.999 },
      { taskId: "b", trial: 0, termination: "max_steps", reward: 0 },
    ]);
    expect(items).toEqual([{ id: "d/a", passed: 1, samples: 2, errors: 0 }, { id: "d/b", passed: 0, samples: 2, errors: 1 }]);
    expect(domain).toMatchObject({ simulations: 4, passed: 1, errors: 1, passAt1: 0.25, passAt1Clean: 1 / 3 });
  });

  it("names the key of a malformed suite and says when tau2 is not installed", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(resolve(tmpdir(), "spade-tau2-"));
    const bad = resolve(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ tau2: { tasks: [{ domain: "retail" }], numTrials: 0 } }));
    expect(() => readTau2Suite(bad)).toThrow(`${bad}: tau2.numTrials: expected a whole number >= 1, got 0`);
    writeFileSync(bad, JSON.stringify({ tau2: { domains: ["retail"] } }));
    expect(() => readTau2Suite(bad)).toThrow(`${bad}: tau2.domains: unknown key`);
    const missing = resolve(dir, "missing.json");
    writeFileSync(missing, JSON.stringify({ tau2: { path: "nowhere", tasks: [{ domain: "retail" }] } }));
    await expect(evaluateSuite(new ScriptedBackend(() => "", 1), { suitePath: missing, python })).rejects.toThrow(/tau2 retail\/base: .*tau2-bench cannot be imported in .*No module named 'tau2'.*pip install/);
  }, 60_000);
});
