// Held-out evaluation: suite formats, answer extraction (boxed, ####, last number), comparison.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { answersMatch } from "../../main/eval/answersMatch.js";
import { evaluateQuestions } from "../../main/eval/evaluateQuestions.js";
import { extractAnswer } from "../../main/eval/extractAnswer.js";
import { parseNumber } from "../../main/eval/parseNumber.js";
import { readEnvironmentSuite } from "../../main/eval/readEnvironmentSuite.js";
import { readQuestionSuite } from "../../main/eval/readQuestionSuite.js";
import { SuiteFormatError } from "../../main/eval/SuiteFormatError.js";
import { ScriptedBackend, lastUserMessage } from "../../main/bench/ScriptedBackend.js";

const gsm8k = join(import.meta.dirname, "..", "..", "..", "shared", "data", "gsm8k", "test.jsonl");
const dir = mkdtempSync(join(tmpdir(), "spade-eval-"));
function suite(name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n") + "\n");
  return path;
}

describe("extractAnswer", () => {
  it("takes the last complete \\boxed{} first, with nested braces", () => {
    expect(extractAnswer("\\boxed{1} then \\boxed{\\frac{1}{2}}", true)).toEqual({ answer: "\\frac{1}{2}", via: "boxed" });
    expect(extractAnswer("\\boxed{ 7 } and \\boxed{8", true)).toEqual({ answer: "7", via: "boxed" });
  });

  it("then what follows the last ####", () => {
    expect(extractAnswer("work 12\n#### 1,200\nthanks", true)).toEqual({ answer: "1,200", via: "hashes" });
  });

  it("then, for numeric answers only, the last number", () => {
    expect(extractAnswer("First 3 apples, so she pays $1,234.", true)).toEqual({ answer: "$1,234", via: "lastNumber" });
    expect(extractAnswer("a drop of -2.5 degrees", true)).toEqual({ answer: "-2.5", via: "lastNumber" });
    expect(extractAnswer("the answer is 42", false)).toBeNull();
    expect(extractAnswer("no idea", true)).toBeNull();
  });
});

describe("comparing answers", () => {
  it("reads numbers ignoring commas, $ and a trailing period", () => {
    expect(parseNumber("$1,234.")).toBe(1234);
    expect(parseNumber(" 1,234.50 ")).toBe(1234.5);
    expect(parseNumber("-.5")).toBe(-0.5);
    expect(parseNumber("12 apples")).toBeNull();
    expect(parseNumber("")).toBeNull();
  });

  it("compares numbers numerically, choices by letter, text normalised", () => {
    const numeric = { expected: "18", kind: "numeric" as const };
    expect(answersMatch(numeric, "18.0")).toBe(true);
    expect(answersMatch(numeric, "$18.")).toBe(true);
    expect(answersMatch(numeric, "\\text{18}")).toBe(true);
    expect(answersMatch(numeric, "17")).toBe(false);
    expect(answersMatch(numeric, "eighteen")).toBe(false);
    expect(answersMatch(numeric, null)).toBe(false);
    const choice = { expected: "B", kind: "choice" as const, choices: ["Paris", "Lyon"] };
    expect(answersMatch(choice, "(b)")).toBe(true);
    expect(answersMatch(choice, "B.")).toBe(true);
    expect(answersMatch(choice, "lyon")).toBe(true);
    expect(answersMatch(choice, "A")).toBe(false);
    expect(answersMatch({ expected: "Blue Whale", kind: "text" }, " blue  whale. ")).toBe(true);
  });
});

describe("readQuestionSuite", () => {
  it("reads a GSM8K slice: the number after #### is the expected answer", () => {
    const read = readQuestionSuite(gsm8k, { limit: 4 });
    expect(read.format).toBe("gsm8k");
    expect(read.items.map((item) => [item.index, item.expected, item.kind])).toEqual([
      [0, "18", "numeric"],
      [1, "3", "numeric"],
      [2, "70000", "numeric"],
      [3, "540", "numeric"],
    ]);
    expect(read.items[1]!.question).toMatch(/^A robe takes 2 bolts/);
  });

  it("reads multiple choice with letter or index answers, and boxed QA with problem or question", () => {
    const mc = readQuestionSuite(suite("mc.jsonl", [{ question: "Capital?", choices: ["Paris", "Lyon"], answer: 1 }, { question: "Q2", choices: ["x", "y", "z"], answer: "c" }]));
    expect(mc.format).toBe("choice");
    expect(mc.items.map((item) => item.expected)).toEqual(["B", "C"]);
    const boxed = readQuestionSuite(suite("boxed.jsonl", [{ problem: "1+1?", answer: "2" }, "", { question: "Colour of the sky?", answer: "blue" }]));
    expect(boxed.format).toBe("boxed");
    expect(boxed.items.map((item) => [item.index, item.kind, item.expected])).toEqual([[0, "numeric", "2"], [1, "text", "blue"]]);
  });

  it("names the file, line and field of a bad question", () => {
    const bad = suite("bad.jsonl", [{ question: "q", answer: "x #### 1" }, { question: "q2", answer: "no hashes" }]);
    expect(() => readQuestionSuite(bad)).toThrow(SuiteFormatError);
    expect(() => readQuestionSuite(bad)).toThrow(`${bad}:2: answer: expected a GSM8K answer ending "#### <number>", got "no hashes"`);
    expect(() => readQuestionSuite(suite("mcbad.jsonl", [{ question: "q", choices: ["a", "b"], answer: "E" }]))).toThrow(/:1: answer: expected a letter A-B or an index 0-1, got "E"/);
    expect(() => readQuestionSuite(suite("unknown.jsonl", [{ prompt: "q" }]))).toThrow(/cannot tell the suite format from the fields prompt/);
    expect(() => readQuestionSuite(suite("json.jsonl", ["{oops"]))).toThrow(/json\.jsonl:1: not valid JSON/);
  });
});

describe("readEnvironmentSuite", () => {
  it("takes the folder's .py files in name order, the first --limit of them", () => {
    const envs = join(import.meta.dirname, "..", "fixtures", "evalEnvironments");
    expect(readEnvironmentSuite(envs).map((file) => file.file)).toEqual(["a_door.py", "b_count.py"]);
    expect(readEnvironmentSuite(envs, 1).map((file) => file.file)).toEqual(["a_door.py"]);
    expect(readEnvironmentSuite(envs)[0]!.code).toContain("class DoorEnv");
    expect(() => readEnvironmentSuite(dir)).toThrow(/holds no \.py files/);
  });
});

describe("evaluateQuestions with a scripted model", () => {
  it("scores exactly what the script answers right, through all three extraction paths", async () => {
    const { items } = readQuestionSuite(gsm8k, { limit: 8 });
    const replies: Record<string, string> = {
      "Janet’s ducks": "16 - 3 - 4 = 9 eggs, 9 * 2 = \\boxed{18}", // boxed, right
      "A robe takes": "2 + 1 = 3\n#### 3", // ####, right
      "Josh decides": "The profit is $70,000.", // last number, right
      "James decides": "\\boxed{450}", // boxed, wrong
      "Every day, Wendi": "I cannot tell.", // nothing found
      "Kylar went": "#### 64.", // ####, right (trailing period ignored)
      Toulouse: "20 + 80 + 160 = 260 sheep, or maybe 300", // last number, wrong
      Carla: "\\boxed{160} minutes", // boxed, right
    };
    const backend = new ScriptedBackend((request) => {
      const question = lastUserMessage(request);
      expect(question).toContain("\\boxed{}");
      return Object.entries(replies).find(([start]) => question.startsWith(start))![1];
    });
    const report = await evaluateQuestions(backend, items, { suite: "gsm8k-slice" });
    expect(report).toEqual({
      suite: "gsm8k-slice",
      n: 8,
      correct: 5,
      accuracy: 5 / 8,
      interval: expect.any(Array),
      items: [
        { index: 0, expected: "18", predicted: "18", correct: true },
        { index: 1, expected: "3", predicted: "3", correct: true },
        { index: 2, expected: "70000", predicted: "$70,000", correct: true },
        { index: 3, expected: "540", predicted: "450", correct: false },
        { index: 4, expected: "20", predicted: null, correct: false },
        { index: 5, expected: "64", predicted: "64.", correct: true },
        { index: 6, expected: "260", predicted: "300", correct: false },
        { index: 7, expected: "160", predicted: "160", correct: true },
      ],
    });
    expect(backend.calls.every((call) => call.sampling?.temperature === 0)).toBe(true);
    // The 95% interval (Wilson's: every question scores 0 or 1) over the 8 questions holds the score, inside what 8 questions allow.
    const [low, high] = report.interval;
    expect(low).toBeLessThan(5 / 8);
    expect(high).toBeGreaterThan(5 / 8);
    expect(low).toBeGreaterThanOrEqual(0);
    expect(high).toBeLessThanOrEqual(1);
  });
});
