// The prompt the model sees, rendered by node-llama-cpp's chat wrappers with this project's pinned
// settings, tokenised with the real stories260K tokenizer: no date, thinking switched per family,
// tools and tool results through the template's own function syntax.
import { resolve } from "node:path";
import { getLlama, resolveChatWrapper, type ChatWrapper, type Llama, type LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, ThinkingMode, ToolSpec } from "../../shared/llm.js";
import { splitReasoning } from "../../shared/splitReasoning.js";
import { createCachingTokenizer } from "../../main/llm/llama/createCachingTokenizer.js";
import { parseToolCalls, toolCallSyntaxOf } from "../../main/llm/llama/parseToolCalls.js";
import { renderChatPrompt } from "../../main/llm/llama/renderChatPrompt.js";
import { pinnedWrapperSettings } from "../../main/llm/llama/resolvePinnedChatWrapper.js";

const stories = resolve(import.meta.dirname, "../../../shared/models/stories260K.gguf");
let llama: Llama;
let model: LlamaModel;
beforeAll(async () => {
  llama = await getLlama({ gpu: false, maxThreads: 1, build: "never", logLevel: "error" as never });
  model = await llama.loadModel({ modelPath: stories });
});
afterAll(async () => {
  await llama?.dispose();
});

type Family = "llama3.1" | "harmony" | "qwen";
/** The pinned settings for a chosen family (the Jinja entry needs a model's template, so it is left out here). */
const settingsFor = (options: Parameters<typeof pinnedWrapperSettings>[0]) => {
  const { jinjaTemplate: _jinja, ...settings } = pinnedWrapperSettings(options);
  return settings;
};
const wrapper = (type: Family, thinking: ThinkingMode = "auto"): ChatWrapper => resolveChatWrapper({ type, customWrapperSettings: settingsFor({ thinking }) }) as ChatWrapper;
// The rendered text (the stories tokenizer's 512 pieces cannot spell every template's markup, so its tokens are checked apart).
const rendered = (chat: ChatWrapper, messages: ChatMessage[], tools?: ToolSpec[]) => renderChatPrompt(model, chat, messages, tools).text.toString();
const messages: ChatMessage[] = [
  { role: "system", content: "You play a game." },
  { role: "user", content: "Observation: 3 apples." },
];
const tools: ToolSpec[] = [{ name: "count_apples", description: "Counts the apples in the basket", parameters: { type: "object", properties: { basket: { type: "string" } } } }];
const year = /20\d\d|Today Date|Cutting Knowledge|Current date/i;

describe("pinned chat wrapper settings", () => {
  it.each<Family>(["llama3.1", "harmony"])("%s: no date in the prompt (replays are bit-exact on any day); node-llama-cpp's default puts one in", (type) => {
    expect(rendered(wrapper(type), messages)).not.toMatch(year);
    expect(rendered(wrapper(type), messages, tools)).not.toMatch(year);
    const unpinned = resolveChatWrapper({ type }) as ChatWrapper;
    expect(rendered(unpinned, messages)).toMatch(year);
  });

  it("llama3.1: tools are rendered, but not the wrapper's own tool instructions", () => {
    const prompt = rendered(wrapper("llama3.1"), messages, tools);
    expect(prompt).toContain("count_apples");
    expect(prompt).toContain("Counts the apples in the basket");
    expect(prompt).not.toContain("Tool Instructions");
    const asked = resolveChatWrapper({ type: "llama3.1", customWrapperSettings: settingsFor({ toolInstructions: true }) }) as ChatWrapper;
    expect(rendered(asked, messages, tools)).toContain("Tool Instructions");
  });
});

describe("thinking", () => {
  it('qwen: "off" opens the reply with an empty think block (enable_thinking false); "on" leaves the model to think', () => {
    const off = rendered(wrapper("qwen", "off"), messages);
    const on = rendered(wrapper("qwen", "on"), messages);
    expect(off.trimEnd()).toMatch(/<\|im_start\|>assistant\n<think>\n\n<\/think>$/);
    expect(on).not.toContain("</think>");
  });

  it("harmony: the reasoning effort follows the mode", () => {
    expect(rendered(wrapper("harmony", "off"), messages)).toMatch(/Reasoning: low/);
    expect(rendered(wrapper("harmony", "on"), messages)).toMatch(/Reasoning: high/);
  });

  it("harmony channels: analysis is reasoning and never reaches the text; final is the text", () => {
    const raw = "<|channel|>analysis<|message|>They have 3 apples, so box 3.<|end|><|start|>assistant<|channel|>final<|message|>\\boxed{3}";
    expect(splitReasoning(raw)).toEqual({ text: "\\boxed{3}", reasoning: "They have 3 apples, so box 3." });
    expect(splitReasoning("<|channel|>analysis<|message|>cut off by maxTok")).toEqual({ text: "", reasoning: "cut off by maxTok" });
  });
});

describe("tools through the template's function syntax", () => {
  const call = { id: "call_7", name: "count_apples", arguments: '{"basket":"left"}' };
  const conversation: ChatMessage[] = [
    ...messages,
    { role: "assistant", content: "", toolCalls: [call] },
    { role: "tool", content: "There are 3 apples.", toolCallId: "call_7" },
  ];

  it("qwen: the call and its result are rendered as a function call and a tool response, and the reply goes on after them", () => {
    const prompt = rendered(wrapper("qwen", "auto"), conversation, tools);
    expect(prompt).toContain('<tool_call>\n{"name": "count_apples", "arguments": {"basket": "left"}}\n</tool_call>');
    // node-llama-cpp writes a result as JSON (a string result in quotes).
    expect(prompt).toMatch(/<tool_response>\n"There are 3 apples\."\n<\/tool_response><\|im_end\|>\n<\|im_start\|>assistant\n$/);
    expect(prompt.indexOf("There are 3 apples.")).toBeGreaterThan(prompt.indexOf("count_apples", prompt.indexOf("Observation")));
  });

  it("llama3.1: the result goes into an ipython turn", () => {
    const prompt = rendered(wrapper("llama3.1"), conversation, tools);
    expect(prompt).toContain('<function=count_apples>{"basket": "left"}</function>');
    expect(prompt).toMatch(/ipython<\|end_header_id\|>\n\n"There are 3 apples\."/);
  });

  it("the prompt tokens are the rendered text tokenised", () => {
    const prompt = renderChatPrompt(model, wrapper("llama3.1"), messages);
    expect(prompt.tokens).toEqual(prompt.text.tokenize(model.tokenizer));
    expect(model.detokenize(prompt.tokens, true)).toContain("Observation: 3 apples.");
  });

  it("a tool message answering no call is refused", () => {
    expect(() => rendered(wrapper("qwen"), [...messages, { role: "tool", content: "x", toolCallId: "nope" }], tools)).toThrow(/call "nope"/);
  });

  it("parses the model's calls with the template's syntax, and stops where a result would begin", () => {
    const qwen = toolCallSyntaxOf(wrapper("qwen"));
    const text = 'Let me count.\n<tool_call>\n{"name": "count_apples", "arguments": {"basket": "left"}}\n</tool_call>\n<tool_call>\n{"name": "count_apples", "arguments": {}}\n</tool_call>';
    expect(parseToolCalls(text, qwen)).toEqual({
      text: "Let me count.",
      calls: [
        { id: "call_0", name: "count_apples", arguments: '{"basket": "left"}' },
        { id: "call_1", name: "count_apples", arguments: "{}" },
      ],
    });
    const llama31 = toolCallSyntaxOf(wrapper("llama3.1"));
    expect(parseToolCalls('<function=count_apples>{"basket": "right"}', llama31).calls).toEqual([{ id: "call_0", name: "count_apples", arguments: '{"basket": "right"}' }]);
    expect(llama31.stopTexts.join("|")).toContain("ipython");
    const harmony = toolCallSyntaxOf(wrapper("harmony"));
    const raw = '<|channel|>analysis<|message|>I should count.<|end|><|start|>assistant<|channel|>commentary to=functions.count_apples <|constrain|>json<|message|>{"basket":"left"}';
    const split = splitReasoning(raw);
    expect(split.reasoning).toBe("I should count.");
    expect(parseToolCalls(split.text, harmony).calls).toEqual([{ id: "call_0", name: "count_apples", arguments: '{"basket":"left"}' }]);
    expect(harmony.stopTexts).toContain("<|call|>");
  });
});

describe("the caching tokenizer", () => {
  it("gives exactly the model tokenizer's tokens turn after turn, tokenising only the new turn's pieces", () => {
    let calls = 0;
    const counted = Object.assign(
      ((...args: Parameters<typeof model.tokenizer>) => {
        calls++;
        return (model.tokenizer as (...a: unknown[]) => number[])(...args);
      }) as typeof model.tokenizer,
      { detokenize: model.tokenizer.detokenize, isSpecialToken: model.tokenizer.isSpecialToken, isEogToken: model.tokenizer.isEogToken },
    );
    const caching = createCachingTokenizer(counted);
    const chat = wrapper("llama3.1");
    const conversation: ChatMessage[] = [{ role: "system", content: "You play a story game. ".repeat(20) }];
    let previousCalls = 0;
    for (let turn = 0; turn < 5; turn++) {
      conversation.push({ role: "user", content: `Turn ${turn}: Lily found a red ball.` });
      const plain = renderChatPrompt(model, chat, conversation).tokens;
      calls = 0;
      expect(renderChatPrompt(model, chat, conversation, [], caching).tokens).toEqual(plain);
      if (turn > 1) expect(calls).toBeLessThanOrEqual(previousCalls);
      previousCalls = calls;
      conversation.push({ role: "assistant", content: `She played with it on turn ${turn}.` });
    }
    // Later turns ask the real tokenizer only for what is new, far fewer pieces than the whole prompt has.
    expect(previousCalls).toBeLessThan(6);
  });
});
