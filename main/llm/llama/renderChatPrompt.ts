import { isLlamaText, type ChatHistoryItem, type ChatWrapper, type LlamaModel, type Token } from "node-llama-cpp";
import type { ChatMessage } from "../../../shared/llm.js";

export interface RenderedPrompt {
  tokens: Token[];
  /** Tokens that end the reply (besides the model's end-of-generation tokens). */
  stopTokens: Set<Token>;
  /** Texts that end the reply, from the chat template. */
  stopTexts: string[];
}

/**
 * Renders a stateless message list with the model's own chat template (node-llama-cpp's chat
 * wrapper resolved for the model), ending with an open assistant turn.
 */
export function renderChatPrompt(model: LlamaModel, wrapper: ChatWrapper, messages: ChatMessage[]): RenderedPrompt {
  const chatHistory: ChatHistoryItem[] = messages.map((message) => {
    if (message.role === "system") return { type: "system", text: message.content };
    if (message.role === "user") return { type: "user", text: message.content };
    return { type: "model", response: [message.content] };
  });
  chatHistory.push({ type: "model", response: [] });
  const state = wrapper.generateContextState({ chatHistory });
  const stopTokens = new Set<Token>();
  const stopTexts: string[] = [];
  for (const trigger of state.stopGenerationTriggers) {
    if (!isLlamaText(trigger)) continue;
    if (trigger.values.every((value) => typeof value === "string")) {
      const text = trigger.values.join("");
      if (text) stopTexts.push(text);
      continue;
    }
    const tokens = trigger.tokenize(model.tokenizer);
    if (tokens.length === 1) stopTokens.add(tokens[0]!);
  }
  return { tokens: state.contextText.tokenize(model.tokenizer), stopTokens, stopTexts };
}
