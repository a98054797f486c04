// A BFCL-v4 multi-turn suite of our own in BFCL's data layout (test file, possible_answer/, a tiny
// API class in func_source_code/ with its docs in multi_turn_func_doc/): the API class runs in a
// worker of the real Python interpreter, the model's native tool calls are executed on it turn by
// turn, and BFCL's state and response checks pass one item and fail the others as written.
import { mkdtempSync, cpSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolCall } from "../../shared/llm.js";
import { ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import { evaluateSuite, suiteNeedsSandbox, suiteScore } from "../../main/eval/evaluateSuite.js";
import { bfclAddedFunctionsPrompt, missingResults, toolsFromDocs } from "../../main/eval/evaluateToolUse.js";
import { readToolUseSuite } from "../../main/eval/readToolUseSuite.js";
import type { ToolUseEvalReport } from "../../main/eval/ToolUseEvalReport.js";
import { resolveTrainerPython } from "../../main/training/resolveTrainerPython.js";

const folder = resolve(import.meta.dirname, "../fixtures/evalSuites/bfcl");
const suitePath = join(folder, "BFCL_v4_multi_turn_base.json");
const python = resolveTrainerPython();
const scratch: string[] = [];
afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

let callIds = 0;
const call = (name: string, args: Record<string, unknown>): ToolCall => ({ id: `call_${callIds++}`, name, arguments: JSON.stringify(args) });
const calls = (...made: ToolCall[]) => ({ text: "", toolCalls: made });

/** The model: which item (its first question), which turn (user messages so far), which step (assistant messages since). */
function script(request: ChatRequest) {
  const users = request.messages.filter((m) => m.role === "user");
  const lastUser = request.messages.findLastIndex((m) => m.role === "user");
  const step = request.messages.slice(lastUser).filter((m) => m.role === "assistant").length;
  const turn = users.length - 1;
  const first = users[0]!.content;
  if (step > 0) return "Done.";
  if (first.startsWith("Deposit 5")) return turn === 0 ? calls(call("deposit", { amount: 5 })) : calls(call("withdraw", { amount: 3 }), call("get_balance", {}));
  if (first.startsWith("Please deposit 20")) return calls(call("deposit", { amount: 2 }));
  if (first.startsWith("What is my balance")) return calls(call("withdraw", { amount: 100 }));
  if (first.startsWith("Withdraw 4")) return turn === 0 ? "I have no function to withdraw money." : calls(call("withdraw", { amount: 4 }));
  throw new Error(`unexpected request: ${first}`);
}

describe("a BFCL multi-turn suite", () => {
  it("reads items with their ground truth from BFCL's layout, and needs no sandbox", () => {
    const suite = readToolUseSuite(suitePath);
    expect(suite.items.map((item) => [item.id, item.turns.length, item.groundTruth])).toEqual([
      ["multi_turn_base_0", 2, [["deposit(amount=5)"], ["withdraw(amount=3)", "get_balance()"]]],
      ["multi_turn_base_1", 1, [["deposit(amount=20)"]]],
      ["multi_turn_base_2", 1, [["get_balance()"]]],
      ["multi_turn_miss_func_3", 2, [[], ["withdraw(amount=4)"]]],
    ]);
    expect(suite.items[3]!.missedFunction).toEqual({ "1": ["withdraw"] });
    expect(suite.classesDir).toBe(join(folder, "func_source_code"));
    expect(suiteNeedsSandbox(suitePath)).toBe(false);
  });

  it("passes an item whose calls leave the ground truth's state and results, and fails one on each check", async () => {
    const backend = new ScriptedBackend(script, 2);
    const report = (await evaluateSuite(backend, { suitePath, python })) as ToolUseEvalReport;
    expect(report.kind).toBe("tool-use");
    expect(report.items.map((item) => [item.id, item.correct, item.failure, item.turn])).toEqual([
      ["multi_turn_base_0", true, null, null],
      ["multi_turn_base_1", false, "state", 0],
      ["multi_turn_base_2", false, "response", 0],
      ["multi_turn_miss_func_3", true, null, null],
    ]);
    expect(report.items[0]!.calls).toEqual([[["deposit(amount=5)"]], [["withdraw(amount=3)", "get_balance()"]]]);
    expect(report.items[1]!.why).toContain("TinyBankAPI.balance: model 2, ground truth 20");
    // The API's exception is the call's result, so the state matches and the balance the ground truth read is missing.
    expect(report.items[2]!.why).toContain(JSON.stringify("The balance is 42."));
    expect(report.n).toBe(4);
    expect(report.correct).toBe(2);
    expect(report.accuracy).toBe(0.5);
    expect(suiteScore(report)).toBe(0.5);
    expect(report.interval[0]).toBeLessThanOrEqual(0.5);
    expect(report.interval[1]).toBeGreaterThanOrEqual(0.5);

    // Native tools with BFCL's doc types as JSON Schema's; the tool results go back as tool messages; temperature 0.
    const firstCall = backend.calls.find((r) => r.messages[0]!.content.startsWith("Deposit 5"))!;
    expect(firstCall.tools!.map((t) => t.name).sort()).toEqual(["deposit", "get_balance", "withdraw"]);
    expect(firstCall.tools!.find((t) => t.name === "deposit")!.parameters).toMatchObject({ type: "object", properties: { amount: { type: "integer" } } });
    expect(firstCall.sampling?.temperature).toBe(0);
    const afterDeposit = backend.calls.find((r) => r.messages[0]!.content.startsWith("Deposit 5") && r.messages.some((m) => m.role === "tool"))!;
    expect(afterDeposit.messages.find((m) => m.role === "tool")!.content).toBe('{"balance": 15}');
    // A withheld function is offered only from its turn, with BFCL's prompt for the turn that adds it.
    const missTurns = backend.calls.filter((r) => r.messages[0]!.content.startsWith("Withdraw 4"));
    expect(missTurns[0]!.tools!.map((t) => t.name)).not.toContain("withdraw");
    const added = missTurns.find((r) => r.messages.some((m) => m.content === bfclAddedFunctionsPrompt))!;
    expect(added.tools!.map((t) => t.name)).toContain("withdraw");
  }, 120_000);

  it("fails an item whose API class crashes its worker, and the other items still score", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-bfcl-"));
    scratch.push(dir);
    cpSync(folder, dir, { recursive: true });
    writeFileSync(join(dir, "func_source_code", "tiny_bank.py"), "import os\n\nclass TinyBankAPI:\n    def _load_scenario(self, scenario, long_context=False):\n        self.balance = scenario.get('balance', 0)\n\n    def deposit(self, amount):\n        os._exit(3)\n\n    def withdraw(self, amount):\n        self.balance -= amount\n        return {'balance': self.balance}\n\n    def get_balance(self):\n        return f'The balance is {self.balance}.'\n");
    const report = (await evaluateSuite(new ScriptedBackend(script, 2), { suitePath: join(dir, "BFCL_v4_multi_turn_base.json"), python })) as ToolUseEvalReport;
    expect(report.items[0]!.failure).toBe("error");
    expect(report.items[0]!.why).toMatch(/exit code 3/);
    expect(report.items[3]!.correct).toBe(true);
  }, 120_000);

  it("names the file, line and field of a malformed suite", () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-bfcl-"));
    scratch.push(dir);
    cpSync(folder, dir, { recursive: true });
    const path = join(dir, "BFCL_v4_multi_turn_base.json");
    writeFileSync(path, `${JSON.stringify({ id: "multi_turn_base_0", question: [[{ role: "user", content: "x" }]], initial_config: {}, involved_classes: "TinyBankAPI" })}\n`);
    expect(() => readToolUseSuite(path)).toThrow(`${path}:1: involved_classes: expected a non-empty list of class names`);
    writeFileSync(path, `${JSON.stringify({ id: "multi_turn_base_9", question: [[{ role: "user", content: "x" }]], initial_config: {}, involved_classes: ["TinyBankAPI"] })}\n`);
    expect(() => readToolUseSuite(path)).toThrow(/:1: id multi_turn_base_9: no ground truth with this id in .*possible_answer/);
    writeFileSync(path, `${JSON.stringify({ id: "agent_multi_step_0", question: "user: send a message", initial_config: {}, involved_classes: ["MessageApi"] })}\n`);
    expect(() => readToolUseSuite(path)).toThrow(`${path}:1: question: a single string is an ACEBench-Agent item; an ACEBench-Agent file must start with one`);
    rmSync(join(dir, "possible_answer"), { recursive: true });
    expect(() => readToolUseSuite(path)).toThrow(/needs its ground truth in .*possible_answer/);
  });

  it("matches results as BFCL's unordered subsequence and turns BFCL's doc types into JSON Schema", () => {
    expect(missingResults(["a", "b", "a"], ["b", "a", "c"])).toEqual(["a"]);
    expect(missingResults(["b", "a"], ["a", "b"])).toEqual([]);
    expect(toolsFromDocs([{ name: "f", parameters: { type: "dict", properties: { x: { type: "float" }, y: { type: "tuple", items: { type: "any" } }, type: { type: "string" } } } }])[0]!.parameters).toEqual({
      type: "object",
      properties: { x: { type: "number" }, y: { type: "array", items: {} }, type: { type: "string" } },
    });
  });
});
