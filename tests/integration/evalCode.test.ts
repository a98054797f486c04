// A LiveCodeBench-style code suite of our own (stdin and functional problems, public and
// compressed hidden tests): programs run in the real sandbox against every test, pass@1 over
// samples as the reference counts it, a program that loops and one that prints too much failing
// their tests with the reason, and the 95% bootstrap interval over problems.
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastUserMessage, ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import { evaluateSuite, suiteNeedsSandbox } from "../../main/eval/evaluateSuite.js";
import type { CodeEvalReport } from "../../main/eval/CodeEvalReport.js";
import { readCodeSuite } from "../../main/eval/readCodeSuite.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";

const suitePath = resolve(import.meta.dirname, "../fixtures/evalSuites/code.jsonl");
const block = (code: string) => `Here it is:\n\`\`\`python\n${code}\n\`\`\``;

let pool: SandboxPool;
beforeAll(async () => {
  pool = await SandboxPool.create({ size: 1 });
});
afterAll(async () => {
  await pool?.dispose();
});

describe("a code suite", () => {
  it("reads public and compressed hidden tests, and functional tests with their method", () => {
    const problems = readCodeSuite(suitePath);
    expect(problems.map((p) => [p.id, p.tests.length])).toEqual([["sum", 3], ["twice", 2], ["loop", 1], ["flood", 1]]);
    expect(problems[0]!.tests[1]).toEqual({ input: "10 -4\n", output: "6\n", testtype: "stdin" });
    expect(problems[1]!.tests[0]).toEqual({ input: "4", output: "8", testtype: "functional", funcName: "twice" });
    expect(suiteNeedsSandbox(suitePath)).toBe(true);
  });

  it("passes and fails programs as their tests say, and reports pass@1 with an interval", async () => {
    const calls = new Map<string, number>();
    const backend = new ScriptedBackend((request) => {
      const question = lastUserMessage(request);
      const key = question.slice(0, 12);
      const call = calls.get(key) ?? 0;
      calls.set(key, call + 1);
      if (question.startsWith("Read two integers")) return block(call === 0 ? "a, b = map(int, input().split())\nprint(a + b)" : "print(0)");
      if (question.startsWith("Return twice")) return block("class Solution:\n    def twice(self, n):\n        return 2 * n");
      if (question.startsWith("Print the line")) return block("while True:\n    pass");
      return block("while True:\n    print(\"1\" * 100000)");
    }, 1);
    const report = (await evaluateSuite(backend, { suitePath, samples: 2, openEnvironment: (code) => pool.open(code, { stepTimeoutMs: 1500 }) })) as CodeEvalReport;
    expect(report.kind).toBe("code");
    expect(report.items.map((item) => [item.id, item.passed, item.samples])).toEqual([["sum", 1, 2], ["twice", 2, 2], ["loop", 0, 2], ["flood", 0, 2]]);
    expect(report.items[0]!.why).toMatch(/printed '0\\n', expected '(3|6|0)\\n'|printed '0\\n'/);
    expect(report.items[2]!.why).toBe("time limit exceeded");
    expect(report.items[3]!.why).toMatch(/printed more than 1000000 characters/);
    expect(report.passAt1).toBeCloseTo((0.5 + 1 + 0 + 0) / 4, 10);
    expect(report.interval[0]).toBeLessThanOrEqual(report.passAt1);
    expect(report.interval[1]).toBeGreaterThanOrEqual(report.passAt1);
    // The reference's LiveCodeBench sampling: temperature 0.2, top-p 0.95; the starter code is in the prompt.
    expect(backend.calls[0]!.sampling).toMatchObject({ temperature: 0.2, topP: 0.95 });
    expect(backend.calls.some((call) => lastUserMessage(call).includes("class Solution:\n    def twice"))).toBe(true);
  }, 180_000);
});
