import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import type { CodeProblem, CodeTest } from "./CodeProblem.js";
import { SuiteFormatError } from "./SuiteFormatError.js";

/** Whether a JSONL suite's first question is a LiveCodeBench-style code problem. */
export function isCodeSuiteLine(fields: Record<string, unknown>): boolean {
  return "question_content" in fields && "public_test_cases" in fields;
}

/**
 * Reads a LiveCodeBench-style code suite (the `code_generation_lite` JSONL the reference's
 * LiveCodeBench suite grades): `question_id`, `question_content`, `starter_code`,
 * `public_test_cases` and `private_test_cases` (a JSON list of {input, output, testtype}, as a
 * string or as LiveCodeBench's compressed form: base64 of zlib of a pickled JSON string, which is
 * read here without unpickling anything but a string), `metadata` with `func_name` for functional
 * tests. Every problem is graded on its public and hidden tests together.
 */
export function readCodeSuite(path: string, limit = Infinity): CodeProblem[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new SuiteFormatError(`${path}: cannot read the suite: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const problems: CodeProblem[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length && problems.length < limit; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const where = `${path}:${i + 1}`;
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(line) as Record<string, unknown>;
    } catch (error) {
      throw new SuiteFormatError(`${where}: not valid JSON: ${(error as Error).message}`);
    }
    if (typeof fields !== "object" || fields === null || !isCodeSuiteLine(fields)) throw new SuiteFormatError(`${where}: expected a code problem {question_content, public_test_cases, ...} like the suite's first line`);
    if (typeof fields.question_content !== "string" || fields.question_content.trim() === "") throw new SuiteFormatError(`${where}: question_content: expected the problem statement as a non-empty string`);
    const metadata = parseMaybeJson(fields.metadata ?? {}, `${where}: metadata`) as Record<string, unknown>;
    const funcName = typeof metadata?.func_name === "string" ? metadata.func_name : undefined;
    const tests = [...readTests(fields.public_test_cases, `${where}: public_test_cases`, funcName), ...readTests(fields.private_test_cases ?? [], `${where}: private_test_cases`, funcName)];
    if (tests.length === 0) throw new SuiteFormatError(`${where}: the problem has no tests`);
    problems.push({
      index: problems.length,
      id: typeof fields.question_id === "string" || typeof fields.question_id === "number" ? String(fields.question_id) : String(problems.length),
      question: fields.question_content,
      starterCode: typeof fields.starter_code === "string" ? fields.starter_code : "",
      tests,
      difficulty: typeof fields.difficulty === "string" ? fields.difficulty : null,
    });
  }
  if (problems.length === 0) throw new SuiteFormatError(`${path}: the suite holds no problems`);
  return problems;
}

function readTests(value: unknown, where: string, funcName: string | undefined): CodeTest[] {
  const list = typeof value === "string" && !value.trimStart().startsWith("[") && value.trim() !== "" ? decodeCompressed(value, where) : parseMaybeJson(value, where);
  if (!Array.isArray(list)) throw new SuiteFormatError(`${where}: expected a list of tests {input, output, testtype}`);
  return list.map((test, index) => {
    const t = test as Record<string, unknown>;
    if (typeof t?.input !== "string" || typeof t.output !== "string") throw new SuiteFormatError(`${where}[${index}]: expected {input: string, output: string, testtype}`);
    const testtype = t.testtype === "functional" ? "functional" : "stdin";
    if (testtype === "functional" && !funcName) throw new SuiteFormatError(`${where}[${index}]: a functional test needs metadata.func_name`);
    return { input: t.input, output: t.output, testtype, ...(testtype === "functional" ? { funcName } : {}) };
  });
}

function parseMaybeJson(value: unknown, where: string): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new SuiteFormatError(`${where}: not valid JSON: ${(error as Error).message}`);
  }
}

/** LiveCodeBench's compressed tests: base64 -> zlib -> a pickle holding one string -> JSON. */
function decodeCompressed(value: string, where: string): unknown {
  let bytes: Buffer;
  try {
    bytes = inflateSync(Buffer.from(value, "base64"));
  } catch {
    throw new SuiteFormatError(`${where}: expected a JSON list of tests or LiveCodeBench's compressed form (base64 of zlib data)`);
  }
  return parseMaybeJson(unpickleString(bytes, where), where);
}

/** The one string a pickle (protocol 2-5) holds; anything else is refused, never executed. */
export function unpickleString(bytes: Buffer, where: string): string {
  let at = 0;
  const refuse = (what: string): never => {
    throw new SuiteFormatError(`${where}: the compressed tests are not a pickled string (${what})`);
  };
  let result: string | null = null;
  while (at < bytes.length) {
    const op = bytes[at++]!;
    if (op === 0x80) at += 1; // PROTO n
    else if (op === 0x95) at += 8; // FRAME size
    else if (op === 0x94) continue; // MEMOIZE
    else if (op === 0x8c) { // SHORT_BINUNICODE
      const n = bytes[at]!;
      result = bytes.subarray(at + 1, at + 1 + n).toString("utf8");
      at += 1 + n;
    } else if (op === 0x58) { // BINUNICODE
      const n = bytes.readUInt32LE(at);
      result = bytes.subarray(at + 4, at + 4 + n).toString("utf8");
      at += 4 + n;
    } else if (op === 0x8d) { // BINUNICODE8
      const n = Number(bytes.readBigUInt64LE(at));
      result = bytes.subarray(at + 8, at + 8 + n).toString("utf8");
      at += 8 + n;
    } else if (op === 0x2e) { // STOP
      return result ?? refuse("no string");
    } else refuse(`opcode 0x${op.toString(16)}`);
  }
  return refuse("no STOP");
}
