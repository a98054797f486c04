// ACEBench-Agent items of our own in ACEBench's layout (a stand-in checkout with a small API class,
// prompts and the constants the worker reads): the calls run in a worker of the real Python
// interpreter, the multi_step and multi_turn dialogues follow ACEBench's protocol, and the end
// state and milestones are scored as ACEBench scores them.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import type { AceBenchEvalReport } from "../../main/eval/AceBenchEvalReport.js";
import { evaluateSuite, suiteNeedsSandbox, suiteScore } from "../../main/eval/evaluateSuite.js";
import { readAceBenchSuite } from "../../main/eval/readAceBenchSuite.js";
import { resolveTrainerPython } from "../../main/training/resolveTrainerPython.js";

const root = resolve(import.meta.dirname, "../fixtures/evalSuites/acebench");
const stepPath = join(root, "data_all/data_en/data_agent_multi_step.json");
const turnPath = join(root, "data_all/data_en/data_agent_multi_turn.json");
const python = resolveTrainerPython();
const scratch: string[] = [];
afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The multi_step agent: which item (its task in the history), which reply (execution results so far). */
function stepAgent(request: ChatRequest): string {
  const user = request.messages[1]!.content;
  const replies = user.split("execution result:").length - 1;
  const plan = user.includes("Add 2 apples")
    ? ["[add_item(name='apple', count=2)]", "finish conversation"]
    : user.includes("add 1 pear")
      ? ["[turn_on_wifi()]", "[add_item(name='pear', count=2)]", "finish conversation"]
      : ["Which fruit?", "[turn_on_wifi()]", "finish conversation"];
  return plan[replies]!;
}

describe("an ACEBench-Agent suite", () => {
  it("reads items and possible answers from ACEBench's layout, and needs no sandbox", () => {
    const suite = readAceBenchSuite(stepPath);
    expect(suite.root).toBe(root);
    expect(suite.language).toBe("en");
    expect(suite.items.map((item) => [item.id, item.category, item.involvedClasses, item.mileStone])).toEqual([
      ["agent_multi_step_0", "multi_step", ["BaseApi", "Pantry"], ["[add_item(name='apple', count=2)]"]],
      ["agent_multi_step_1", "multi_step", ["BaseApi", "Pantry"], ["[turn_on_wifi()]", "[add_item(name='pear', count=1)]"]],
      ["agent_multi_step_2", "multi_step", ["BaseApi", "Pantry"], [["[add_item(name='kiwi', count=1)]"], ["[turn_on_wifi()]"]]],
    ]);
    expect(suite.items[0]!.functions).toHaveLength(2);
    expect(readAceBenchSuite(turnPath).items[0]!.category).toBe("multi_turn");
    expect(suiteNeedsSandbox(stepPath)).toBe(false);
  });

  it("plays multi_step items as ACEBench does and scores end state and milestones both ways", async () => {
    const backend = new ScriptedBackend(stepAgent, 2);
    const report = (await evaluateSuite(backend, { suitePath: stepPath, python })) as AceBenchEvalReport;
    expect(report.kind).toBe("acebench");
    expect(report.items.map((item) => [item.id, item.correct, item.process, item.turns])).toEqual([
      ["agent_multi_step_0", true, 1, 3],
      ["agent_multi_step_1", false, 0.5, 5],
      ["agent_multi_step_2", false, 1, 5],
    ]);
    expect(report.items[1]!.why).toBe('Pantry.items.pear: expected 1, got 2');
    expect(report.items[2]!.why).toBe("Pantry.items: missing kiwi (expected {\"kiwi\":1}, got {})");
    expect(report.items[1]!.calls).toEqual(["[turn_on_wifi()]", "[add_item(name='pear', count=2)]"]);
    // Every reply went to execution, the words too (the last "finish conversation" ends the dialogue).
    expect(report.items[2]!.calls).toEqual(["Which fruit?", "[turn_on_wifi()]"]);
    expect(report.n).toBe(3);
    expect(report.correct).toBe(1);
    expect(report.accuracy).toBeCloseTo(1 / 3, 12);
    expect(suiteScore(report)).toBeCloseTo(1 / 3, 12);
    expect(report.processAccuracy).toBeCloseTo(2.5 / 3, 12);
    expect(report.interval[0]).toBeLessThanOrEqual(1 / 3);
    expect(report.interval[1]).toBeGreaterThanOrEqual(1 / 3);
    expect(report.userSimulator).toBe("the evaluated model");

    // The zh agent prompt (ACEBench builds its multi_step agent without a language), the docs and
    // the history as text: the task, then the execution results; the agent's own replies are not in it.
    const third = backend.calls.filter((r) => r.messages[1]!.content.includes("Add some fruit")).at(-1)!;
    expect(third.messages[0]).toEqual({ role: "system", content: 'STEP-AGENT-ZH: answer with calls like [Api(key=\'value\')]; say "finish conversation" when done.' });
    expect(third.messages[1]!.content).toBe(
      "APIs: [{'name': 'turn_on_wifi', 'description': 'Turn on WiFi.', 'parameters': {'type': 'dict', 'required': [], 'properties': {}}}, {'name': 'add_item', 'description': 'Add items to the pantry.', 'parameters': {'type': 'dict', 'required': ['name', 'count'], 'properties': {'name': {'type': 'string'}, 'count': {'type': 'integer'}}}}]. " +
        "History: user:Add some fruit.\nexecution result:NO-QUESTIONS: work with what you were told.\nexecution result:[{'status': True, 'message': 'Wi-Fi is on'}]\n\n",
    );
    expect(third.sampling).toMatchObject({ temperature: 0.001, maxTokens: 1000 });
  }, 120_000);

  it("plays a multi_turn item against a simulated user and records who played the user", async () => {
    const agent = new ScriptedBackend((request) => {
      const history = request.messages[1]!.content;
      if (history.includes("execution:")) return "The banana is in the pantry.";
      return history.includes("user:One.") ? "[add_item(name='banana', count=1)]" : "How many bananas?";
    }, 1);
    const user = new ScriptedBackend((request) => {
      const told = request.messages.filter((m) => m.role === "user").length;
      return ["Please add a banana to my pantry.", "One.", "finish conversation"][told - 1]!;
    }, 1);
    const report = (await evaluateSuite(agent, { suitePath: turnPath, python, userBackend: user, maxTokens: 300 })) as AceBenchEvalReport;
    // A token budget given to the evaluation is the agent's; the simulator keeps ACEBench's.
    expect(agent.calls[0]!.sampling).toMatchObject({ temperature: 0.001, maxTokens: 300 });
    expect(user.calls[0]!.sampling).toMatchObject({ temperature: 0.001, maxTokens: 1000 });
    expect(report.items.map((item) => [item.correct, item.process, item.why, item.calls])).toEqual([[true, 1, null, ["[add_item(name='banana', count=1)]"]]]);
    expect(report.userSimulator).toBe("scripted");
    // The simulator: its prompt with the instruction, the checkout's opening line, then the agent's words as user turns.
    expect(user.calls.at(-1)!.messages).toEqual([
      { role: "system", content: "SIMULATED-USER. Instruction: You are Ann. You want one banana added to the pantry.\nSay 'finish conversation' when it is done." },
      { role: "user", content: "What can I do for you?" },
      { role: "assistant", content: "Please add a banana to my pantry." },
      { role: "user", content: "How many bananas?" },
      { role: "assistant", content: "One." },
      { role: "user", content: "The banana is in the pantry." },
    ]);
    // The agent: the en turn prompt with the domain rules of BaseApi, the whole dialogue as text.
    const last = agent.calls.at(-1)!;
    expect(last.messages[0]!.content).toBe("TURN-AGENT-EN: call [Api(key='value')] or ask the user.\nPANTRY-RULES: one call at a time.");
    expect(last.messages[1]!.content.split("History:\n")[1]).toBe(
      "user:Please add a banana to my pantry.\nagent:How many bananas?\nuser:One.\nagent:[add_item(name='banana', count=1)]\nexecution:[{'status': True, 'message': '1 banana added'}]\n",
    );
  }, 120_000);

  it("names the file, line and field of a malformed suite", () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-acebench-"));
    scratch.push(dir);
    cpSync(root, dir, { recursive: true });
    const path = join(dir, "data_all/data_en/data_agent_multi_step.json");
    writeFileSync(path, `${JSON.stringify({ id: "agent_multi_step_0", question: "x", function: [], initial_config: {}, involved_classes: [] })}\n`);
    expect(() => readAceBenchSuite(path)).toThrow(`${path}:1: involved_classes: expected a non-empty list of class names`);
    writeFileSync(join(dir, "data_all/data_en/possible_answer/data_agent_multi_step.json"), `${JSON.stringify({ id: "agent_multi_step_0", ground_truth: [{ BaseApi: 1 }], mile_stone: [] })}\n`);
    expect(() => readAceBenchSuite(path)).toThrow(/possible_answer\/data_agent_multi_step.json:1: ground_truth: expected a list of \{Class: \{attribute: value\}\}/);
    const outside = join(dir, "elsewhere.json");
    writeFileSync(outside, "");
    expect(() => readAceBenchSuite(outside)).toThrow("an ACEBench-Agent file must sit in ACEBench's layout");
  });
});
