import { readFileSync } from "node:fs";
import { resourcePath } from "../paths.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { SandboxTimeoutError } from "../sandbox/errors.js";
import type { CodeTest } from "./CodeProblem.js";

/** One test's outcome. */
export interface CodeTestResult {
  passed: boolean;
  /** Why it failed (wrong output, the program's exception, time-out, output limit), else null. */
  why: string | null;
}

let template: string | null = null;

/** The sandboxed environment that runs `program` against tests (resources/eval/code_tests_env.py with the program filled in). */
export function codeTestsEnvironment(program: string): string {
  template ??= readFileSync(resourcePath("eval", "code_tests_env.py"), "utf8");
  return template.replace("__PROGRAM__", () => JSON.stringify(program));
}

/**
 * Runs a candidate program against every test in the workbench's sandbox: one session per
 * program, one step per test, each with the sandbox's step deadline (a loop fails its test as a
 * time-out, and later tests run in a fresh session). Stops at the first failing test, as a judge does.
 */
export async function runCodeTests(program: string, tests: readonly CodeTest[], open: (code: string) => Promise<EnvSession>): Promise<CodeTestResult> {
  const code = codeTestsEnvironment(program);
  let session: EnvSession | null = null;
  try {
    for (const test of tests) {
      if (session === null) {
        session = await open(code);
        await session.reset(0);
      }
      let passed = false;
      let why: string | null = null;
      try {
        const result = await session.step(JSON.stringify(test));
        passed = result.info.passed === true;
        why = typeof result.info.why === "string" ? result.info.why : passed ? null : "failed";
      } catch (error) {
        why = error instanceof SandboxTimeoutError ? "time limit exceeded" : (error as Error).message;
        await session.close().catch(() => undefined);
        session = null;
      }
      if (!passed) return { passed: false, why };
    }
    return { passed: true, why: null };
  } finally {
    await session?.close().catch(() => undefined);
  }
}
