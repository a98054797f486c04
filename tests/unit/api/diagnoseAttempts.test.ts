import { describe, expect, it } from "vitest";
import { PromptTooLongError } from "../../../main/llm/PromptTooLongError.js";
import { diagnoseAttempts, type AttemptOutcome } from "../../../main/selfplay/diagnoseAttempts.js";

const noCode: AttemptOutcome = { valid: false, error: "the designer's reply has no ```python code block", failedCheck: "code_block" };
const tooLong = (n: number): AttemptOutcome => ({ valid: false, error: `prompt too long (${n} > 2048 tokens): raise backend.contextSize or shorten the prompt`, failedCheck: null });
const failing = (check: string, detail: string): AttemptOutcome => ({ valid: false, error: detail, failedCheck: check });

describe("diagnoseAttempts", () => {
  it("says when no reply contained Python code", () => {
    expect(diagnoseAttempts(Array(6).fill(noCode))).toEqual({
      kind: "noCode",
      count: 6,
      total: 6,
      message: "6 of 6 replies contained no Python code: this model may not write code; see the replies",
    });
  });

  it("says the prompt did not fit, with the worst overflow and the key to raise", () => {
    const diagnosis = diagnoseAttempts([tooLong(4300), tooLong(8248), noCode]);
    expect(diagnosis?.kind).toBe("promptTooLong");
    expect(diagnosis?.message).toBe("2 of 3 designer prompts did not fit the model's context (8248 > 2048 tokens): raise backend.contextSize (up to the context the model was trained on), or shorten the grounding document (corpus.maxWords)");
  });

  it("without a corpus names no document to shorten, and never a context past the trained one", () => {
    const atTrained: AttemptOutcome = { valid: false, error: new PromptTooLongError(600, 512, 512).message, failedCheck: null };
    expect(diagnoseAttempts([atTrained, atTrained], { corpus: false })?.message).toBe(
      "2 of 2 designer prompts did not fit the model's context (600 > 512 tokens): use a model trained on a longer context (this one was trained on 512 tokens, the context already holds 512), or show fewer memory references (memory.references; the run has no corpus document to shorten)",
    );
    expect(atTrained.error).toBe("prompt too long (600 > 512 tokens; the model was trained on 512): shorten the prompt");
    const below: AttemptOutcome = { valid: false, error: new PromptTooLongError(600, 256, 512).message, failedCheck: null };
    expect(diagnoseAttempts([below])?.message).toBe("1 of 1 designer prompts did not fit the model's context (600 > 256 tokens): raise backend.contextSize (up to 512, the context the model was trained on), or shorten the grounding document (corpus.maxWords)");
  });

  it("names the check every attempt failed, with the first failure's message", () => {
    const diagnosis = diagnoseAttempts([failing("reset_determinism", "reset(0) twice gave different observations"), failing("reset_determinism", "reset(1) twice gave different observations")]);
    expect(diagnosis).toMatchObject({ kind: "sameCheck", count: 2, total: 2 });
    expect(diagnosis?.message).toBe('2 of 2 attempts failed the same check "reset_determinism": reset(0) twice gave different observations');
  });

  it("recognises validation time-outs and mixed failures", () => {
    expect(diagnoseAttempts([failing("step", "step() timeout after 30000 ms")])?.kind).toBe("timeout");
    const mixed = diagnoseAttempts([{ valid: false, error: "SyntaxError: invalid syntax", failedCheck: null }, { valid: false, error: "boom", failedCheck: null }, { valid: false, error: "SyntaxError: invalid syntax", failedCheck: null }]);
    expect(mixed).toMatchObject({ kind: "mixed", count: 2, total: 3 });
    expect(mixed?.message).toBe("none of 3 attempts is valid; the most common failure (2): SyntaxError: invalid syntax");
  });

  it("has nothing to say when an attempt is valid or there are none", () => {
    expect(diagnoseAttempts([])).toBeNull();
    expect(diagnoseAttempts([noCode, { valid: true, error: null, failedCheck: null }])).toBeNull();
  });
});
