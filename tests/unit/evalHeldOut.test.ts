// The paper's held-out formats on items written here: AIME-style numeric answers with
// mathematical equivalence averaged over k samples, GPQA-style multiple choice with shuffled
// options averaged over k, and the reference's sample counts as the defaults.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ScriptedBackend, lastUserMessage } from "../../main/bench/ScriptedBackend.js";
import { evaluateSuite } from "../../main/eval/evaluateSuite.js";
import { mathEquivalent } from "../../main/eval/mathEquivalent.js";
import { readQuestionSuite } from "../../main/eval/readQuestionSuite.js";

const dir = mkdtempSync(join(tmpdir(), "spade-heldout-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, rows: object[]) => {
  const path = join(dir, name);
  writeFileSync(path, rows.map((row) => JSON.stringify(row)).join("\n") + "\n");
  return path;
};

describe("mathematical equivalence", () => {
  it("reads integers, decimals, fractions, \\frac and simple LaTeX as numbers", () => {
    const same: [string, string][] = [
      ["042", "42"], ["1,024", "1024"], ["\\frac{3}{4}", "0.75"], ["\\dfrac{6}{8}", "3/4"], ["-\\frac{1}{2}", "-0.5"], ["$\\boxed{17}$", "17"],
      ["x = 5", "5"], ["\\text{12}", "12"], ["90^\\circ", "90"], ["25\\%", "25"], ["\\left(7\\right)", "7"], ["\\frac12", "0.5"], ["2.50", "5/2"],
    ];
    for (const [a, b] of same) expect(mathEquivalent(a, b), `${a} = ${b}`).toBe(true);
    const different: [string, string][] = [["\\frac{2}{3}", "0.66"], ["41", "42"], ["blue", "42"], ["", "0"], ["1/0", "1"]];
    for (const [a, b] of different) expect(mathEquivalent(a, b), `${a} != ${b}`).toBe(false);
  });
});

describe("AIME-style suites", () => {
  const path = write("aime.jsonl", [
    { prompt: [{ role: "user", content: "Q0: find 3/4 of 100." }], label: "75" },
    { prompt: "Q1: what is one half, as a fraction?", label: "1/2" },
  ]);

  it("read the reference's {prompt, label} rows, average over k samples and compare with equivalence", async () => {
    expect(readQuestionSuite(path).format).toBe("aime");
    const asked = new Map<string, number>();
    // Q0: every other sample right (written as a fraction of the answer's LaTeX); Q1: always right as \frac.
    const backend = new ScriptedBackend((request) => {
      const question = lastUserMessage(request);
      const count = asked.get(question) ?? 0;
      asked.set(question, count + 1);
      if (question.startsWith("Q0")) return count % 2 === 0 ? "So \\boxed{\\frac{150}{2}}." : "\\boxed{74}";
      return "It is \\boxed{\\dfrac{1}{2}}";
    });
    const report = await evaluateSuite(backend, { suitePath: path, samples: 4 });
    expect(backend.calls).toHaveLength(8);
    expect(backend.calls[0]!.messages).toEqual([{ role: "user", content: "Q0: find 3/4 of 100." }]);
    expect(report).toMatchObject({ n: 2, samples: 4, correct: 2, passAtK: 1, accuracy: (0.5 + 1) / 2 });
    expect("kind" in report ? null : report.items[0]!.score).toBe(0.5);
  });

  it("take the reference's 64 samples at temperature 1.0 by default", async () => {
    const backend = new ScriptedBackend(() => "\\boxed{75}");
    const report = await evaluateSuite(backend, { suitePath: path, limit: 1 });
    expect(backend.calls).toHaveLength(64);
    expect(backend.calls[0]!.sampling).toMatchObject({ temperature: 1, topP: 0.95, topK: 20 });
    expect(new Set(backend.calls.map((call) => call.sampling!.seed)).size).toBe(64);
    expect(report).toMatchObject({ samples: 64, accuracy: 1 });
  });
});

describe("GPQA-style suites", () => {
  const rows = Array.from({ length: 6 }, (_, i) => ({ Question: `Which is item ${i}?`, "Correct Answer": `right ${i}`, "Incorrect Answer 1": `wrong a${i}`, "Incorrect Answer 2": `wrong b${i}`, "Incorrect Answer 3": `wrong c${i}` }));
  const path = write("gpqa.jsonl", rows);

  it("shuffle the options once per question (seeded) and keep the correct one's letter", () => {
    const { format, items } = readQuestionSuite(path);
    expect(format).toBe("gpqa");
    for (const item of items) {
      expect(item.choices).toHaveLength(4);
      expect(item.choices![item.expected.charCodeAt(0) - 65]).toBe(`right ${item.index}`);
    }
    expect(new Set(items.map((item) => item.expected)).size).toBeGreaterThan(1); // not always A
    expect(readQuestionSuite(path).items).toEqual(items); // the same order every time
    expect(readQuestionSuite(path, { shuffleSeed: 7 }).items.map((item) => item.choices)).not.toEqual(items.map((item) => item.choices));
  });

  it("average over the reference's 8 samples by default, reading \\boxed{} or 'the answer is'", async () => {
    const asked = new Map<string, number>();
    const backend = new ScriptedBackend((request) => {
      const prompt = lastUserMessage(request);
      const count = asked.get(prompt) ?? 0;
      asked.set(prompt, count + 1);
      const letter = /([A-D])\. right/.exec(prompt)![1]!;
      if (count < 2) return `\\boxed{${letter}}`;
      if (count < 4) return `so the answer is ${letter}.`;
      return "\\boxed{Z}";
    });
    const report = await evaluateSuite(backend, { suitePath: path });
    expect(backend.calls).toHaveLength(6 * 8);
    expect(backend.calls[0]!.sampling).toMatchObject({ temperature: 0.7, topP: 0.95 });
    expect(report).toMatchObject({ n: 6, samples: 8, correct: 6, accuracy: 0.5 });
  });
});
