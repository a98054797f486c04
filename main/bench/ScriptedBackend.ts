// A scripted model for benchmarks and self-play logic tests: nothing real can write environments
// here (the only real model is a 260K-parameter story model), so replies come from a function of
// the request. Never used by a run: the run config has no way to select it.
import type { ChatResult } from "../../shared/llm.js";
import type { ChatRequest, LlmBackend } from "../llm/LlmBackend.js";
import { designerPromptMarker } from "../selfplay/designerPrompt.js";

/** A reply: its text, or the text with other result fields (native `toolCalls`, a `finishReason`). */
export type ScriptedReply = string | (Partial<ChatResult> & { text: string });

export type Script = (request: ChatRequest, call: number) => ScriptedReply | Promise<ScriptedReply>;

export class ScriptedBackend implements LlmBackend {
  readonly name = "scripted";
  readonly adapter: string | null = null;
  readonly calls: ChatRequest[] = [];

  constructor(
    private readonly script: Script,
    readonly parallelism = 4,
  ) {}

  async chat(request: ChatRequest): Promise<ChatResult> {
    const call = this.calls.length;
    this.calls.push(request);
    const scripted = await this.script(request, call);
    const reply = typeof scripted === "string" ? { text: scripted } : scripted;
    const words = reply.text.split(/\s+/).filter(Boolean).length;
    return { reasoning: null, finishReason: "stop", promptTokens: request.messages.reduce((n, m) => n + m.content.length, 0) >> 2, completionTokens: words, ...reply };
  }

  async dispose(): Promise<void> {}
}

/** Which role a request is for, judged from the prompts the engine sends. */
export function requestRole(request: ChatRequest): "designer" | "repair" | "hint" | "agent" {
  const first = request.messages[0]?.content ?? "";
  const designer = first.startsWith("You are the Environment Designer") || request.messages.some((m) => m.role !== "assistant" && m.content.includes(designerPromptMarker));
  if (designer) return request.messages.some((m) => m.role === "assistant") ? "repair" : "designer";
  if (first.startsWith("You write hints") || first.startsWith("You read the source code of")) return "hint";
  return "agent";
}

/** The last user message (the current observation, for the agent). */
export function lastUserMessage(request: ChatRequest): string {
  return [...request.messages].reverse().find((message) => message.role === "user")?.content ?? "";
}
