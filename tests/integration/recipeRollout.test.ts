// The reference agent protocol on real sandboxed environments, with the scripted backend: the
// framed first message without a system prompt, the first \boxed{} as the action, a length stop,
// -1 for an exception in step(), native tool calls (several per turn, results as tool messages,
// wrong answers go on), reference-style environments validated and played, numpy refused by name,
// and the recorded prompts of a historyTurns episode equal to what the backend received.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import { PromptTooLongError } from "../../main/llm/PromptTooLongError.js";
import { resourcePath } from "../../main/paths.js";
import { malformedToolCallNote, playEpisode } from "../../main/rollout/playEpisode.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { getTurns, insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { validateEnvironment } from "../../main/validator/validateEnvironment.js";
import { importEnvironments } from "../../main/experiments/importEnvironments.js";
import { readEnvironmentSources } from "../../main/experiments/readEnvironmentSources.js";
import { listEnvSetMembers } from "../../main/store/queries/envSets.js";
import { mkdirSync, writeFileSync } from "node:fs";

const codeBreaker = readFileSync(resourcePath("environments", "code_breaker.py"), "utf8");
/** A game as the reference's Designer writes it: no imports (the reference injects the names). The errand game is the shipped example without its imports. */
const reference = (name: string) =>
  name === "errand_steps.py"
    ? readFileSync(resourcePath("environments", "errand_tools.py"), "utf8").replace(/^import .*\n/gm, "")
    : readFileSync(fileURLToPath(new URL(`../fixtures/environments/reference/${name}`, import.meta.url)), "utf8");
/** Whether the sandbox seeds an environment's namespace with `spade_env.reference_globals()` (the sandbox helper's hook). */
const namespaceHook = readFileSync(resourcePath("python", "spade_sandbox.py"), "utf8").includes("reference_globals");
/** The same environment with the injected names imported, for the attribute-API checks that must not wait for the hook. */
const withImports = (code: string) => `import random, json, re\nfrom collections import deque, Counter, defaultdict\n${code}`;

const raisesOnBoom = `
class BoomEnv:
    def __init__(self, max_turns=5, **kwargs):
        self.reset()
    def reset(self, seed=None):
        return "Say \\\\boxed{boom} or \\\\boxed{wait}.", {}
    def step(self, action):
        if "boom" in action:
            raise ValueError("it blew up")
        return "You waited.", 0.5, False, False, {}
    def solution(self):
        return "\\\\boxed{wait}"
    def close(self):
        pass
`;

let pool: SandboxPool;
beforeAll(async () => {
  pool = await SandboxPool.create({ size: 2, stepTimeoutMs: 5000 });
});
afterAll(async () => {
  await pool?.dispose();
});

const play = async (code: string, backend: ScriptedBackend, extra: Partial<Parameters<typeof playEpisode>[0]> = {}) => {
  const session = await pool.open(code);
  try {
    return await playEpisode({ session, backend, seed: 5, maxTurns: 3, ...extra });
  } finally {
    await session.close();
  }
};

describe("the reference agent protocol on games", () => {
  it("sends no system prompt, frames the first observation, and steps the FIRST \\boxed{} of a reply", async () => {
    const backend = new ScriptedBackend(() => "Maybe \\boxed{9876}? No: \\boxed{0123}.");
    const episode = await play(codeBreaker, backend, { hint: "Use disjoint guesses." });
    expect(episode.turns.map((turn) => turn.action)).toEqual(Array(3).fill("\\boxed{9876}"));
    const first = backend.calls[0]!;
    expect(first.messages.map((m) => m.role)).toEqual(["user"]);
    expect(first.messages[0]!.content).toContain(`Observation: ${episode.firstObservation}`);
    expect(first.messages[0]!.content).toMatch(/step by step/);
    expect(first.thinking).toBe("off");
    expect(first.sampling).toMatchObject({ temperature: 0.6, topP: 0.95, topK: 20 });
    // Later observations follow as plain user messages: the full history.
    expect(backend.calls[2]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(backend.calls[2]!.messages[2]!.content).toBe(episode.turns[0]!.observation);
  });

  it("a reply that stops on the token budget ends the episode, truncated, without stepping", async () => {
    const backend = new ScriptedBackend(() => ({ text: "Let me think about \\boxed{01", finishReason: "length" }));
    const episode = await play(codeBreaker, backend);
    expect(backend.calls).toHaveLength(1);
    expect(episode.turns).toHaveLength(1);
    expect(episode.turns[0]).toMatchObject({ truncated: true, terminated: false, reward: 0, observation: "" });
    expect(episode.return).toBe(0);
  });

  it("a play that fills the context ends truncated with return 0, as a normal (trained) play, not an error", async () => {
    const backend = new ScriptedBackend((_, call) => {
      if (call > 0) throw new PromptTooLongError(600, 512);
      return "\\boxed{0123}";
    });
    const episode = await play(codeBreaker, backend);
    expect(backend.calls).toHaveLength(2);
    expect(episode.turns).toHaveLength(1);
    expect(episode.turns[0]!.terminated).toBe(false);
    expect(episode.return).toBe(0);
    expect(episode.error).toBeNull();
  });

  it("an exception in step() scores -1 and ends the episode", async () => {
    const backend = new ScriptedBackend((_, call) => (call === 0 ? "\\boxed{wait}" : "\\boxed{boom}"));
    const episode = await play(raisesOnBoom, backend);
    expect(episode.turns.map((turn) => turn.reward)).toEqual([0.5, -1]);
    expect(episode.turns[1]!.terminated).toBe(true);
    expect(episode.return).toBe(-1);
    expect(episode.error).toMatch(/it blew up/);
    const workbench = await play(raisesOnBoom, new ScriptedBackend(() => "\\boxed{boom}"), { protocol: { stepErrorReward: null } });
    expect(workbench.turns).toHaveLength(0);
    expect(workbench.return).toBe(0);
  });
});

describe("recorded prompts", () => {
  it("with historyTurns: 1, every stored turn prompt is exactly what the backend received", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-recorded-prompts-"));
    const db = openDatabase(join(dir, "ws.sqlite"));
    try {
      const backend = new ScriptedBackend((_, call) => `guess ${call} \\boxed{${String(1234 + call * 1111).slice(0, 4)}}`);
      const episode = await play(codeBreaker, backend, { maxTurns: 4, historyTurns: 1 });
      expect(episode.turns).toHaveLength(4);
      expect(backend.calls.map((call) => call.messages.length)).toEqual([1, 3, 3, 3]);
      const runId = createRun(db).id;
      const environmentId = insertEnvironment(db, { runId, iteration: 0, slot: 0, attempt: 0, source: "designer", code: codeBreaker, valid: true });
      const { turns, ...fields } = episode;
      const id = insertEpisodeWithTurns(db, { ...fields, runId, environmentId }, turns);
      expect(getTurns(db, id).map((turn) => turn.messages)).toEqual(backend.calls.map((call) => call.messages));
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A tool-using agent that answers with native tool calls: two lookups in one turn, a wrong answer, then the right one. */
function ledgerAgent(request: ChatRequest) {
  const assistants = request.messages.filter((m) => m.role === "assistant").length;
  const tools = request.messages.filter((m) => m.role === "tool").map((m) => m.content);
  const owner = /owned by '(\w+)'/.exec(request.messages[0]!.content)![1]!;
  if (assistants === 0) return { text: "", toolCalls: [{ id: "a", name: "list_owners", arguments: "{}" }, { id: "b", name: "find_accounts", arguments: JSON.stringify({ owner }) }] };
  if (assistants === 1) {
    const accounts = JSON.parse(tools[1]!) as string[];
    return { text: "", toolCalls: accounts.map((account, i) => ({ id: `c${i}`, name: "get_balance", arguments: JSON.stringify({ account }) })) };
  }
  const total = tools.slice(2).reduce((sum, text) => sum + Number(text), 0);
  return assistants === 2 ? { text: "<answer>-5</answer>" } : { text: `The total is <answer>${total}</answer>` };
}

describe("tool use with native tool calls", () => {
  for (const [label, code] of [["with the names imported", withImports(reference("ledger_lookup.py"))], ...(namespaceHook ? [["as written for the reference (no imports)", reference("ledger_lookup.py")]] : [])] as const) {
    it(`plays a reference-style ToolUseBaseEnv ${label}: tools offered natively, several calls per turn, results as tool messages, a wrong answer goes on`, async () => {
      const backend = new ScriptedBackend(ledgerAgent);
      const episode = await play(code, backend, { maxTurns: 6 });
      expect(episode.error).toBeNull();
      expect(backend.calls[0]!.tools!.map((tool) => tool.name)).toEqual(["find_accounts", "get_balance", "list_owners"]);
      expect(episode.tools).toEqual(backend.calls[0]!.tools); // recorded, for the training exports' `tools`
      expect(backend.calls[0]!.messages).toEqual([{ role: "user", content: episode.firstObservation }]);
      const second = backend.calls[1]!.messages;
      expect(second.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
      expect(second[1]!.toolCalls!.map((call) => call.id)).toEqual(["a", "b"]);
      expect(second.slice(2).map((m) => m.toolCallId)).toEqual(["a", "b"]);
      expect(episode.turns[0]!.action).toContain('"name":"find_accounts"');
      expect(episode.turns[2]).toMatchObject({ reward: 0, terminated: false }); // the wrong answer
      expect(episode.turns[2]!.observation).toMatch(/Incorrect/);
      expect(episode.turns[3]).toMatchObject({ reward: 1, terminated: true });
      expect(episode.return).toBe(1);
      // Native calls do not use up the environment's turns: only the two answers counted.
      expect(episode.turns).toHaveLength(4);
    });
  }

  it("falls back to <tool_call> text when the backend returns no native calls", async () => {
    const backend = new ScriptedBackend((request) => {
      const native = ledgerAgent(request);
      if (!("toolCalls" in native)) return native.text;
      return native.toolCalls!.map((call) => `<tool_call>{"name": "${call.name}", "arguments": ${call.arguments}}</tool_call>`).join("\n");
    });
    const episode = await play(withImports(reference("ledger_lookup.py")), backend, { maxTurns: 6 });
    expect(backend.calls[1]!.messages.filter((m) => m.role === "tool")).toHaveLength(2);
    expect(episode.return).toBe(1);
  });

  it("a malformed <tool_call> is marked not to train and the next observation names the expected call (the tool-use recipe)", async () => {
    const script = (request: ChatRequest) => {
      const assistants = request.messages.filter((m) => m.role === "assistant").length;
      if (assistants === 0) return '<tool_call>{"name": "list_owners", "arguments": </tool_call>';
      const native = ledgerAgent({ ...request, messages: request.messages.filter((_, i) => i === 0 || i > 2) });
      return "toolCalls" in native ? native : native.text;
    };
    const masked = new ScriptedBackend(script);
    const episode = await play(withImports(reference("ledger_lookup.py")), masked, { maxTurns: 6, protocol: { maskMalformedToolCalls: true } });
    expect(episode.turns[0]!.info).toMatchObject({ malformedToolCall: true });
    expect(episode.turns[0]!.observation.endsWith(malformedToolCallNote)).toBe(true);
    expect(masked.calls[1]!.messages[2]!.content.endsWith(malformedToolCallNote)).toBe(true);
    expect(episode.turns.slice(1).some((turn) => turn.info.malformedToolCall === true)).toBe(false);
    const plain = new ScriptedBackend(script);
    const unmasked = await play(withImports(reference("ledger_lookup.py")), plain, { maxTurns: 6 });
    expect(unmasked.turns[0]!.info.malformedToolCall).toBeUndefined();
    expect(plain.calls[1]!.messages[2]!.content).not.toContain("[FORMAT]");
  });

  it("an <answer> reply that also holds an unparsable <tool_call> is an answer, not a malformed call (the reference checks <answer> first)", async () => {
    const backend = new ScriptedBackend(() => '<tool_call>{"name": "list_owners", "arguments": </tool_call>\n<answer>nobody</answer>');
    const episode = await play(withImports(reference("ledger_lookup.py")), backend, { maxTurns: 2, protocol: { maskMalformedToolCalls: true } });
    expect(episode.turns[0]!.info.malformedToolCall).toBeUndefined();
    expect(episode.turns[0]!.observation).not.toContain("[FORMAT]");
  });

  it("a multi-turn reference task reveals its instructions one at a time and only accepts 'done' at the end", async () => {
    const steps = ['{"name": "view_catalog", "arguments": {}}', null, '{"name": "checkout", "arguments": {"method": "card"}}'];
    const backend = new ScriptedBackend((request) => {
      const turn = request.messages.filter((m) => m.role === "assistant").length;
      const last = request.messages.at(-1)!.content;
      if (turn === 1) return `<tool_call>{"name": "add_to_cart", "arguments": {"item": "${/Put (\w+) in my cart/.exec(last)![1]}"}}</tool_call>`;
      return turn < steps.length ? `<tool_call>${steps[turn]}</tool_call>` : "<answer>done</answer>";
    });
    const episode = await play(withImports(reference("errand_steps.py")), backend, { maxTurns: 6 });
    expect(episode.turns.map((turn) => turn.observation).join("\n")).toMatch(/STEP 1 COMPLETE - NEW INSTRUCTION\] Put \w+ in my cart/);
    expect(episode.turns.at(-2)!.observation).toMatch(/ALL STEPS COMPLETE/);
    expect(episode.return).toBe(1);
  });
});

describe("reference-style environments", () => {
  it.runIf(namespaceHook)("validate and play without importing the names the reference injects", async () => {
    for (const name of ["beacon_relay.py", "ledger_lookup.py", "errand_steps.py"]) {
      const report = await validateEnvironment(pool, reference(name), { timeoutMs: 60_000 });
      expect(report.error, name).toBeNull();
      expect(report.valid).toBe(true);
    }
    const backend = new ScriptedBackend((request) => {
      const seen = request.messages.map((m) => m.content).join("\n");
      const target = Number(/Light beacon (\d)/.exec(seen)![1]);
      const lit = [...seen.matchAll(/Lit: \[([\d, ]+)\]/g)].at(-1)![1]!.split(", ").map(Number);
      const links = [...seen.matchAll(/Beacon (\d) links to \[([\d, ]*)\]/g)];
      for (const [, from, to] of links) for (const n of to!.split(", ").map(Number)) if (lit.includes(Number(from)) && !lit.includes(n)) return `\\boxed{light ${n}}`;
      const unscouted = lit.find((n) => !links.some((l) => Number(l[1]) === n));
      return unscouted === undefined ? `\\boxed{light ${target}}` : `\\boxed{scout ${unscouted}}`;
    });
    const episode = await play(reference("beacon_relay.py"), backend, { maxTurns: 12 });
    expect(episode.error).toBeNull();
    expect(episode.return).toBe(1);
  });

  it("the attribute-style ToolUseBaseEnv validates (names imported, so this runs before the namespace hook lands)", async () => {
    for (const name of ["ledger_lookup.py", "errand_steps.py"]) {
      const report = await validateEnvironment(pool, withImports(reference(name)), { timeoutMs: 60_000 });
      expect(report.error, name).toBeNull();
    }
  });

  it("a game that imports numpy is refused with a message that names the module", async () => {
    const report = await validateEnvironment(pool, reference("needs_numpy.py"), { timeoutMs: 60_000 });
    expect(report.valid).toBe(false);
    expect(report.error).toMatch(/numpy/);
  });

  it("a folder of games saved by the reference imports, each with the skill its file name gives", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-import-reference-"));
    const db = openDatabase(join(dir, "ws.sqlite"));
    try {
      const games = join(dir, "spade_games");
      mkdirSync(games);
      const code = (name: string) => (namespaceHook ? reference(name) : withImports(reference(name)));
      writeFileSync(join(games, "game_00004_000_spatial_reasoning.py"), '"""SPADE self-play generated game"""\n\n' + code("beacon_relay.py"));
      writeFileSync(join(games, "game_00004_001_data_retrieval.py"), '"""SPADE self-play generated game"""\n\n' + code("ledger_lookup.py"));
      writeFileSync(join(games, "game_00004_002_optimization.py"), reference("needs_numpy.py"));
      writeFileSync(join(games, "game_00004_001_data_retrieval.json"), "{}");
      const report = await importEnvironments(db, pool, "reference-pool", readEnvironmentSources(games));
      expect(report.imported).toBe(2);
      expect(report.rejected.map((r) => r.name)).toEqual(["game_00004_002_optimization.py"]);
      expect(report.rejected[0]!.error).toMatch(/numpy/);
      expect(listEnvSetMembers(db, "reference-pool").map((m) => m.skill).sort()).toEqual(["Data Retrieval", "Spatial Reasoning"]);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
