import type { ChatMessage, ChatResult, ThinkingMode } from "../../shared/llm.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import { loadPrompt, renderTemplate } from "../util/renderTemplate.js";
import type { DesignerSetting } from "./designerPrompt.js";

export interface WrittenHint {
  text: string;
  prompt: ChatMessage[];
  rawReply: string;
  /** True when a reply spelled out the solution and the kept text was redacted. */
  leaked: boolean;
  /** True when every call replied with nothing or failed (`emptyRetries` of them): there is no hint, and the game's regret is 0. */
  empty: boolean;
  /** The hint-writer calls made. */
  calls: number;
  /** The kept reply's call: its token ids, log-probs and sampling, where the backend gives them; null when every call failed. */
  result: ChatResult | null;
  /** The last call's error when every call failed (the backend threw); null otherwise. */
  error: string | null;
}

export interface HintSampling {
  /** The reference writes hints at 0.3. */
  temperature: number;
  /** The reference's 0.9 (`generate_async`'s default). Defaults to the backend's. */
  topP?: number;
  /** The reference's 20 (its adapter's default sampling parameters). Defaults to the backend's. */
  topK?: number;
  /** The reference's budgets: 4096 for games, 2048 for tool use. */
  maxTokens: number;
  seed: number;
}

export interface WriteHintOptions {
  /** Games hints (key insight and answer format) or tool-use hints (a plan by tool role, never concrete values). Defaults to "games". */
  setting?: DesignerSetting;
  /**
   * "reference": the reference's hint-writer prompts (system + code), the reply kept as written.
   * "workbench": this project's earlier one-message prompt, the reply cut to three sentences.
   * Defaults to "reference".
   */
  style?: "reference" | "workbench";
  /**
   * The hint-leak check (this project's addition, off in the recipes): a hint that spells out the
   * solution is asked for once more, then redacted. Defaults to false.
   */
  leakCheck?: boolean;
  /** Thinking control for the hint writer's call (`hint.thinking`). Defaults to "off" (the launchers' `enable_thinking: false`). */
  thinking?: ThinkingMode;
  /** Calls made while the reply is empty or the call fails, as the reference's hint writer retries (`max_retries=3`). Defaults to 3. */
  emptyRetries?: number;
  /** The wait after the n-th failed call (0-based) before the next: the reference's `2 ** attempt` seconds. Defaults to 1000 x 2^n ms. */
  backoffMs?: (failure: number) => number;
  /** Errors that are not the backend's trouble and end the call at once (a prompt that does not fit, a stop). Defaults to none. */
  isFatal?: (error: unknown) => boolean;
}

/** The reference asks its hint writer again on an empty reply, up to three calls in all. */
export const HINT_EMPTY_RETRIES = 3;

/** Keeps the first three sentences and at most 600 characters (the workbench style). */
export function tidyHint(reply: string): string {
  const flat = reply.replace(/^\s*(hint\s*:\s*)/i, "").replace(/\s+/g, " ").trim();
  const sentences = flat.match(/[^.!?]+[.!?]+(\s|$)|[^.!?]+$/g) ?? [flat];
  return sentences.slice(0, 3).join("").trim().slice(0, 600);
}

/** The reply as the reference keeps it: trimmed; a ```json {"hint": ...}``` wrapper is unwrapped. */
export function parseHintReply(reply: string): string {
  const text = reply.trim();
  const json = /```json\s*\n?([\s\S]*?)\n?```/.exec(text);
  if (json) {
    try {
      const data: unknown = JSON.parse(json[1]!.trim());
      if (data && typeof data === "object" && typeof (data as { hint?: unknown }).hint === "string") return (data as { hint: string }).hint;
    } catch {
      // not JSON after all: keep the text
    }
  }
  return text;
}

const normalise = (text: string) => text.toLowerCase().replace(/\\boxed\{([^}]*)\}/g, "$1").replace(/\s+/g, " ").trim();

const WORD_CHARACTER = /\w/;

/** Whether `piece` occurs in `text` with no word character right before or after it (no pattern is built from either). */
function containsWholeWords(text: string, piece: string): boolean {
  if (piece.length === 0) return false;
  for (let at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, at + 1)) {
    const before = at === 0 ? "" : text[at - 1]!;
    const after = text[at + piece.length] ?? "";
    if (!WORD_CHARACTER.test(before) && !WORD_CHARACTER.test(after)) return true;
  }
  return false;
}

/**
 * True when the hint gives the environment's answer away: it contains the whole reference
 * solution (3 characters or more), or, when the solution is one short answer (a single
 * `\boxed{}` or a single word), that answer; both as whole words (4217 is not in 42170).
 */
export function hintLeaksSolution(hint: string, solution: string): boolean {
  const text = normalise(hint);
  const contains = (piece: string) => containsWholeWords(text, piece.toLowerCase());
  const answer = normalise(solution);
  if (answer.length >= 3 && contains(answer)) return true;
  const boxed = [...solution.matchAll(/\\boxed\{([^{}]*)\}/g)].map((m) => m[1]!.trim());
  const single = boxed.length === 1 ? boxed[0]! : /^\S+$/.test(solution.trim()) ? solution.trim() : null;
  return single !== null && single.length > 0 && contains(single);
}

/**
 * The leak check for any hint, written or the environment's own `hint()`: an environment must not
 * buy regret by revealing its answer. A leaking hint comes back with the solution redacted.
 */
export function screenHint(hint: string, solution: string): { text: string; leaked: boolean } {
  if (!hintLeaksSolution(hint, solution)) return { text: hint, leaked: false };
  let text = hint;
  const pieces = [solution.trim(), ...[...solution.matchAll(/\\boxed\{([^{}]*)\}/g)].map((m) => m[1]!.trim())].filter((p) => p.length > 0);
  for (const piece of pieces) text = text.split(piece).join("[redacted]");
  return { text, leaked: true };
}

/** The hint writer's messages: the reference's system prompt for the setting, then the code. */
export function hintMessages(code: string, options: WriteHintOptions = {}): ChatMessage[] {
  if (options.style === "workbench") return [{ role: "user", content: renderTemplate(loadPrompt("hint-writer-workbench.md"), { code }) }];
  const system = loadPrompt(options.setting === "toolUse" ? "hint-writer-tool.md" : "hint-writer.md");
  return [
    { role: "system", content: system },
    { role: "user", content: renderTemplate(loadPrompt("hint-writer-user.md"), { code }) },
  ];
}

/**
 * The hint writer: a separate model call that reads the environment's code (temperature 0.3 in
 * the reference) and must not give the answer away. An empty reply is asked for again, up to
 * `emptyRetries` calls; when all are empty the result is `empty` (no hint). With `leakCheck`, a
 * hint that spells out the solution is asked for once more, then redacted.
 */
export async function writeHint(backend: LlmBackend, code: string, solution: string, sampling: HintSampling, options: WriteHintOptions = {}): Promise<WrittenHint> {
  const prompt = hintMessages(code, options);
  const tidy = options.style === "workbench" ? tidyHint : parseHintReply;
  const emptyRetries = Math.max(1, options.emptyRetries ?? HINT_EMPTY_RETRIES);
  const backoffMs = options.backoffMs ?? ((failure: number) => 1000 * 2 ** failure);
  let calls = 0;
  // One reply that is not empty, or none after `emptyRetries` calls that were empty or threw, as the
  // reference's `generate_hint_with_retry` (an empty reply raises there too), waiting 2^n s between.
  // Each call has its own seed.
  const ask = async (): Promise<{ result: ChatResult | null; text: string; error: string | null }> => {
    let last: { result: ChatResult | null; text: string; error: string | null } = { result: null, text: "", error: null };
    for (let tries = 0; tries < emptyRetries; tries++) {
      if (tries > 0) await sleep(backoffMs(tries - 1));
      try {
        const { topP, topK, ...rest } = sampling;
        const result = await backend.chat({ messages: prompt, sampling: { ...rest, ...(topP === undefined ? {} : { topP }), ...(topK === undefined ? {} : { topK }), seed: sampling.seed + calls }, thinking: options.thinking ?? "off" });
        last = { result, text: tidy(result.text), error: null };
      } catch (error) {
        if (options.isFatal?.(error)) throw error;
        last = { result: null, text: "", error: error instanceof Error ? error.message : String(error) };
      }
      calls++;
      if (last.text.trim() !== "") return last;
    }
    return last;
  };
  const attempts = options.leakCheck ? 2 : 1;
  let reply: { result: ChatResult | null; text: string; error: string | null } | null = null;
  for (let attempt = 0; attempt < attempts; attempt++) {
    reply = await ask();
    const done = { prompt, rawReply: reply.result?.text ?? "", calls, result: reply.result, error: reply.error };
    if (reply.text.trim() === "") return { ...done, text: "", leaked: false, empty: true };
    if (!options.leakCheck || !hintLeaksSolution(reply.text, solution)) return { ...done, text: reply.text, leaked: false, empty: false };
  }
  return { ...screenHint(reply!.text, solution), prompt, rawReply: reply!.result?.text ?? "", empty: false, calls, result: reply!.result, error: null };
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
