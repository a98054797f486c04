// Why no designer attempt of a run became a valid environment, from the stored validation errors
// and failing check names: the run page's banner and `spade report`'s summary line.
import type { RunDiagnosis } from "../../shared/api/runTypes.js";

/** One stored designer attempt, as far as the diagnosis needs it. */
export interface AttemptOutcome {
  valid: boolean;
  /** The first failing check's message (environments.validation_error). */
  error: string | null;
  /** The name of the first failing check, when the validation report is stored. */
  failedCheck: string | null;
}

type Reason = { kind: RunDiagnosis["kind"]; key: string; detail: string };

const NO_CODE_CHECK = "code_block";

function reasonOf(attempt: AttemptOutcome): Reason {
  const error = attempt.error ?? "";
  if (/prompt too long/i.test(error)) return { kind: "promptTooLong", key: "promptTooLong", detail: error };
  if (attempt.failedCheck === NO_CODE_CHECK || /no ```python code block/.test(error)) return { kind: "noCode", key: "noCode", detail: error };
  if (/time(d)?[ -]?out/i.test(error)) return { kind: "timeout", key: "timeout", detail: error };
  if (attempt.failedCheck) return { kind: "sameCheck", key: `check:${attempt.failedCheck}`, detail: error };
  return { kind: "mixed", key: `error:${firstLine(error) || "unknown"}`, detail: error || "no reason stored" };
}

function firstLine(text: string): string {
  return (text.split("\n").find((line) => line.trim() !== "") ?? "").trim();
}

/** The largest `(N > M tokens)` pair among the messages (and the trained context they name), so the banner says how far off the context is. */
function worstOverflow(details: string[]): { text: string; context: number | null; trained: number | null } {
  let worst: { n: number; m: number; trained: number | null } | null = null;
  for (const detail of details) {
    const match = /\((\d+) > (\d+) tokens(?:; the model was trained on (\d+))?\)/.exec(detail);
    if (match && (!worst || Number(match[1]) > worst.n)) worst = { n: Number(match[1]), m: Number(match[2]), trained: match[3] === undefined ? null : Number(match[3]) };
  }
  return worst ? { text: ` (${worst.n} > ${worst.m} tokens)`, context: worst.m, trained: worst.trained } : { text: "", context: null, trained: null };
}

/**
 * What to change when designer prompts do not fit: the context only up to what the model was
 * trained on (past it replies degrade), the grounding document only when there is one.
 */
function tooLongAdvice(details: string[], corpus: boolean): string {
  const { text, context, trained } = worstOverflow(details);
  const raise =
    trained === null ? "raise backend.contextSize (up to the context the model was trained on)"
    : context !== null && context < trained ? `raise backend.contextSize (up to ${trained}, the context the model was trained on)`
    : `use a model trained on a longer context (this one was trained on ${trained} tokens, the context already holds ${context})`;
  const shorten = corpus ? "shorten the grounding document (corpus.maxWords)" : "show fewer memory references (memory.references; the run has no corpus document to shorten)";
  return `${text}: ${raise}, or ${shorten}`;
}

export interface DiagnoseAttemptsOptions {
  /** The run grounds its designer prompts on a corpus document. Defaults to true. */
  corpus?: boolean;
}

/**
 * The diagnosis of attempts none of which is valid: the most common reason, with how many attempts
 * share it. Null when there are no attempts or at least one is valid (nothing to explain).
 */
export function diagnoseAttempts(attempts: readonly AttemptOutcome[], options: DiagnoseAttemptsOptions = {}): RunDiagnosis | null {
  if (attempts.length === 0 || attempts.some((attempt) => attempt.valid)) return null;
  const groups = new Map<string, { reason: Reason; details: string[] }>();
  for (const attempt of attempts) {
    const reason = reasonOf(attempt);
    const group = groups.get(reason.key) ?? { reason, details: [] };
    group.details.push(reason.detail);
    groups.set(reason.key, group);
  }
  // Ties go to the reason seen first (Map keeps insertion order; sort is stable).
  const top = [...groups.values()].sort((a, b) => b.details.length - a.details.length)[0]!;
  const count = top.details.length;
  const total = attempts.length;
  const share = `${count} of ${total}`;
  const message = (() => {
    switch (top.reason.kind) {
      case "noCode":
        return `${share} replies contained no Python code: this model may not write code; see the replies`;
      case "promptTooLong":
        return `${share} designer prompts did not fit the model's context${tooLongAdvice(top.details, options.corpus ?? true)}`;
      case "timeout":
        return `${share} attempts timed out in validation: raise sandbox.validationTimeoutMs, or look at the code for endless loops`;
      case "sameCheck":
        return `${share} attempts failed the same check "${top.reason.key.slice("check:".length)}": ${firstLine(top.details[0] ?? "")}`;
      case "mixed":
        return count === total ? `${share} attempts failed with: ${firstLine(top.details[0] ?? "") || "no reason stored"}` : `none of ${total} attempts is valid; the most common failure (${count}): ${firstLine(top.details[0] ?? "") || "no reason stored"}`;
    }
  })();
  return { kind: top.reason.kind, count, total, message };
}
