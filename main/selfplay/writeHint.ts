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
  /** The kept reply's call: its token ids, log-probs and sampling, where the backend gives them. */
  result: ChatResult;
}

export interface HintSampling {
  /** The reference writes hints at 0.3. */
  temperature: number;
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
}

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
 * the reference) and must not give the answer away. With `leakCheck`, a hint that spells out the
 * solution is asked for once more, then redacted.
 */
export async function writeHint(backend: LlmBackend, code: string, solution: string, sampling: HintSampling, options: WriteHintOptions = {}): Promise<WrittenHint> {
  const prompt = hintMessages(code, options);
  const tidy = options.style === "workbench" ? tidyHint : parseHintReply;
  const attempts = options.leakCheck ? 2 : 1;
  let rawReply = "";
  let text = "";
  let result: ChatResult | null = null;
  for (let attempt = 0; attempt < attempts; attempt++) {
    result = await backend.chat({ messages: prompt, sampling: { ...sampling, seed: sampling.seed + attempt }, thinking: options.thinking ?? "off" });
    rawReply = result.text;
    text = tidy(result.text);
    if (!options.leakCheck || !hintLeaksSolution(text, solution)) return { text, prompt, rawReply, leaked: false, result };
  }
  return { ...screenHint(text, solution), prompt, rawReply, result: result! };
}
