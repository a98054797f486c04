// The rollout engine on the example environments, in the real sandbox, with a scripted agent.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import { resourcePath } from "../../main/paths.js";
import { runPlays } from "../../main/rollout/runPlays.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";

const codeBreaker = readFileSync(resourcePath("environments", "code_breaker.py"), "utf8");
const warehouse = readFileSync(resourcePath("environments", "warehouse_tools.py"), "utf8");
const hangsOnSeedTwo = `
class SometimesHangsEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.seed = None
        self.reset()
    def reset(self, seed=None):
        self.seed = seed
        return "Say \\\\boxed{go}.", {}
    def step(self, action):
        while self.seed == 2:
            pass
        return "Done.", 1.0, True, False, {}
    def solution(self):
        return "\\\\boxed{go}"
    def close(self):
        pass
`;

let pool: SandboxPool;
beforeAll(async () => {
  // A process per play: these tests are about the rollout engine's handling of a play that fails or
  // hangs; what a hang does to plays sharing its process is tested in sandboxSharedPlays.
  pool = await SandboxPool.create({ size: 2, stepTimeoutMs: 1500, playsPerProcess: 1 });
});
afterAll(async () => {
  await pool?.dispose();
});

const userMessages = (request: ChatRequest) => request.messages.filter((m) => m.role === "user").map((m) => m.content);

/** A tool-using agent that really solves the warehouse audit from what the tools answer. */
function warehouseAgent(request: ChatRequest): string {
  const observations = userMessages(request);
  const category = /'(\w+)' category/.exec(observations[0]!)![1];
  const replies = request.messages.filter((m) => m.role === "assistant").length;
  if (replies === 0) return `<tool_call>{"name": "list_products", "arguments": {"category": "${category}"}}</tool_call>`;
  const products = observations[1]!.split(", ").map((name) => name.trim());
  const asked = replies - 1;
  if (asked < products.length * 2) {
    const product = products[Math.floor(asked / 2)];
    const tool = asked % 2 === 0 ? "get_stock" : "get_price";
    return `<tool_call>{"name": "${tool}", "arguments": {"product": "${product}"}}</tool_call>`;
  }
  let total = 0;
  for (let i = 0; i < products.length; i++) {
    const units = Number(/(\d+) units/.exec(observations[2 + 2 * i]!)![1]);
    const price = Number(/\$(\d+)/.exec(observations[3 + 2 * i]!)![1]);
    total += units * price;
  }
  return `The total is <answer>${total}</answer>`;
}

describe("the rollout engine", () => {
  it("tells a trace each moment of a play, under the play's routing key, in order: open, reset, each request and step, store, close", async () => {
    const backend = new ScriptedBackend(() => "\\boxed{0123}");
    const seen: string[] = [];
    const keys = new Set<string>();
    const stored: string[] = [];
    await runPlays({
      open: () => pool.open(codeBreaker), backend, specs: [{ hinted: true, playIndex: 2, canary: false, seed: 5 }], hint: "Use disjoint guesses.", maxTurns: 2,
      trace: (play, mark) => {
        keys.add(play);
        seen.push(mark);
      },
      onEpisode: () => void stored.push(seen.at(-1)!),
    });
    expect([...keys]).toEqual(["spade-5-2-hinted"]);
    // the close is sent before the episode is stored, and the store does not wait for the sandbox's answer to it
    expect(seen).toEqual(["opening", "opened", "observed", "asking", "answered", "stepped", "asking", "answered", "stepped", "stored", "closed"]);
    expect(stored).toEqual(["stepped"]);
  });

  it("with the workbench protocol, sends the last \\boxed{} of each reply and cuts the episode at maxTurns", async () => {
    const backend = new ScriptedBackend(() => "Maybe \\boxed{9876}? No: \\boxed{0123}.");
    const { episodes } = await runPlays({ open: () => pool.open(codeBreaker), backend, specs: [{ hinted: false, playIndex: 0, canary: false, seed: 5 }], hint: null, maxTurns: 3, protocol: { messages: "workbench", action: "last" } });
    const [episode] = episodes;
    expect(episode!.error).toBeNull();
    expect(episode!.turns.map((turn) => turn.action)).toEqual(["\\boxed{0123}", "\\boxed{0123}", "\\boxed{0123}"]);
    expect(episode!.turns.map((turn) => turn.rawReply)).toEqual(Array(3).fill("Maybe \\boxed{9876}? No: \\boxed{0123}."));
    expect(episode!.turns[0]!.observation).toMatch(/^0123: \d bulls, \d cows\./);
    expect(episode!.return).toBe(0); // cut off, not terminated: SPADE counts 0
  });

  it("puts the hint on the first observation of hinted plays only", async () => {
    const backend = new ScriptedBackend(() => "\\boxed{0123}");
    const { episodes } = await runPlays({
      open: () => pool.open(codeBreaker), backend, hint: "Use disjoint guesses.", maxTurns: 3,
      specs: [{ hinted: true, playIndex: 0, canary: false, seed: 5 }, { hinted: false, playIndex: 0, canary: false, seed: 5 }],
    });
    expect(episodes.map((e) => e.hinted)).toEqual([false, true]);
    expect(episodes[1]!.firstObservation.endsWith("\n\nHINT: Use disjoint guesses.")).toBe(true);
    expect(episodes[0]!.firstObservation).not.toContain("HINT:");
    expect(episodes[1]!.firstObservation.replace("\n\nHINT: Use disjoint guesses.", "")).toBe(episodes[0]!.firstObservation);
    const hintedCalls = backend.calls.filter((call) => userMessages(call)[0]!.includes("HINT:"));
    expect(hintedCalls).toHaveLength(3);
    for (const call of hintedCalls) expect(userMessages(call).slice(1).some((text) => text.includes("HINT:"))).toBe(false);
  });

  it("with the workbench protocol, plays a tool-use environment with the tool protocol and its schemas in the system prompt", async () => {
    const backend = new ScriptedBackend(warehouseAgent);
    const { episodes } = await runPlays({ open: () => pool.open(warehouse), backend, hint: null, maxTurns: 15, specs: [{ hinted: false, playIndex: 0, canary: false, seed: 3 }], protocol: { messages: "workbench", nativeTools: false } });
    const [episode] = episodes;
    expect(episode!.error).toBeNull();
    const system = backend.calls[0]!.messages[0]!.content;
    expect(system).toContain("<tool_call>");
    expect(system).toContain('"list_products"');
    expect(episode!.turns[0]!.action).toContain('"name": "list_products"');
    expect(episode!.turns.at(-1)!.action).toMatch(/<answer>\d+<\/answer>/);
    expect(episode!.return).toBe(1);
    expect(episode!.turns).toHaveLength(1 + 2 * 3 + 1);
  });

  it("a step() that hangs ends that episode with a timeout; the others finish", async () => {
    const backend = new ScriptedBackend(() => "\\boxed{go}");
    const { episodes } = await runPlays({
      open: () => pool.open(hangsOnSeedTwo), backend, hint: null, maxTurns: 3, concurrency: 2,
      specs: [1, 2, 3].map((seed, playIndex) => ({ hinted: false, playIndex, canary: false, seed })),
    });
    expect(episodes.map((e) => [e.seed, e.return, e.timedOut])).toEqual([[1, 1, false], [2, 0, true], [3, 1, false]]);
    expect(episodes[1]!.error).toMatch(/timeout/);
  });

  it("a canary that times out skips the rest of the batch", async () => {
    const backend = new ScriptedBackend(() => "\\boxed{go}");
    const outcome = await runPlays({
      open: () => pool.open(hangsOnSeedTwo), backend, hint: null, maxTurns: 3,
      specs: [{ hinted: false, playIndex: 0, canary: true, seed: 2 }, { hinted: false, playIndex: 0, canary: false, seed: 1 }],
    });
    expect(outcome.episodes).toHaveLength(1);
    expect(outcome.skipped).toMatch(/canary play timed out/);
  });
});
