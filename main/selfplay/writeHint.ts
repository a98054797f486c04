import type { ChatMessage } from "../../shared/llm.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import { loadPrompt, renderTemplate } from "../util/renderTemplate.js";

export interface WrittenHint {
  text: string;
  prompt: ChatMessage[];
  rawReply: string;
}

/** Keeps the first three sentences and at most 600 characters. */
export function tidyHint(reply: string): string {
  const flat = reply.replace(/^\s*(hint\s*:\s*)/i, "").replace(/\s+/g, " ").trim();
  const sentences = flat.match(/[^.!?]+[.!?]+(\s|$)|[^.!?]+$/g) ?? [flat];
  return sentences.slice(0, 3).join("").trim().slice(0, 600);
}

/** True when the hint spells out the environment's reference solution. */
export function hintLeaksSolution(hint: string, solution: string): boolean {
  const normalise = (text: string) => text.toLowerCase().replace(/\\boxed\{([^}]*)\}/g, "$1").replace(/\s+/g, " ").trim();
  const answer = normalise(solution);
  return answer.length >= 3 && normalise(hint).includes(answer);
}

/**
 * The hint writer: a separate model call that reads the environment's code (temperature 0.3) and
 * must not give the answer away. A hint that spells out the solution is asked for once more, then
 * redacted.
 */
export async function writeHint(backend: LlmBackend, code: string, solution: string, sampling: { temperature: number; maxTokens: number; seed: number }): Promise<WrittenHint> {
  const prompt: ChatMessage[] = [{ role: "user", content: renderTemplate(loadPrompt("hint-writer.md"), { code }) }];
  let rawReply = "";
  let text = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    const reply = await backend.chat({ messages: prompt, sampling: { ...sampling, seed: sampling.seed + attempt } });
    rawReply = reply.text;
    text = tidyHint(reply.text);
    if (!hintLeaksSolution(text, solution)) return { text, prompt, rawReply };
  }
  const redacted = text.split(solution.trim()).join("[redacted]");
  return { text: redacted, prompt, rawReply };
}
