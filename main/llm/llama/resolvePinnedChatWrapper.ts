import { resolveChatWrapper, type ChatWrapper, type LlamaModel, type ResolveChatWrapperWithModelOptions } from "node-llama-cpp";
import type { ThinkingMode } from "../../../shared/llm.js";

export interface PinnedWrapperOptions {
  /** Thinking control for reasoning families. Defaults to "auto" (the family's own default). */
  thinking?: ThinkingMode;
  /**
   * Let the wrapper write its built-in tool-use instructions (Llama 3.1's "you have access to
   * functions..." preamble) when tools are offered. Defaults to false: the recipe's prompt says
   * what the model is to do, and the tools themselves are still rendered by the template.
   */
  toolInstructions?: boolean;
}

/**
 * The model's own chat wrapper (node-llama-cpp's resolution from the GGUF's template and name),
 * with every setting that would put text into the prompt that the recipe did not ask for pinned:
 * no today's date and no knowledge-cut-off line (so a replay is bit-exact on any day), no
 * built-in tool instructions unless asked. Thinking maps to each family's switch:
 * - Qwen 3: "off" = `thoughts: "discourage"` (an empty `<think></think>` opens the reply, as
 *   Qwen's template does for `enable_thinking: false`); "on"/"auto" = `thoughts: "auto"`.
 * - Jinja templates (any family node-llama-cpp renders from the GGUF's template): `reasoning`
 *   false / true / null (the template's `enable_thinking` switch, or its default for "auto").
 * - Gemma 4: `reasoning` false / true / default.
 * - gpt-oss (harmony): reasoning cannot be switched off; "off" asks for `reasoningEffort: "low"`,
 *   "on" for "high", "auto" keeps "medium". Its analysis channel is always stored as reasoning.
 * - Muse: `reasoningStrength` "low" / "high" / default.
 * - DeepSeek R1 and other families without a switch: the model's default; reasoning it writes in
 *   `<think>` is still stored apart from the reply.
 */
export function resolvePinnedChatWrapper(model: LlamaModel, options: PinnedWrapperOptions = {}): ChatWrapper {
  return resolveChatWrapper(model, { customWrapperSettings: pinnedWrapperSettings(options) });
}

/** node-llama-cpp's `customWrapperSettings` for the pinned settings above. */
export function pinnedWrapperSettings(options: PinnedWrapperOptions = {}): NonNullable<ResolveChatWrapperWithModelOptions["customWrapperSettings"]> {
  const thinking = options.thinking ?? "auto";
  const noToolInstructions = !(options.toolInstructions ?? false);
  return {
      "llama3.1": { todayDate: null, cuttingKnowledgeDate: null, noToolInstructions },
      harmony: { todayDate: null, cuttingKnowledgeDate: null, reasoningEffort: thinking === "off" ? "low" : thinking === "on" ? "high" : "medium" },
      qwen: { thoughts: thinking === "off" ? "discourage" : "auto" },
      gemma4: thinking === "auto" ? {} : { reasoning: thinking === "on" },
      muse: { todayDate: null, knowledgeCutoff: null, ...(thinking === "auto" ? {} : { reasoningStrength: thinking === "on" ? "high" : "low" }) },
      jinjaTemplate: { reasoning: thinking === "auto" ? null : thinking === "on" },
  };
}
