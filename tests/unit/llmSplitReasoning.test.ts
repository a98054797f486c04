import { describe, expect, it } from "vitest";
import { splitReasoning } from "../../shared/splitReasoning.js";

describe("splitReasoning", () => {
  it("leaves a reply without think tags untouched", () => {
    expect(splitReasoning("  \\boxed{3}  ")).toEqual({ text: "  \\boxed{3}  ", reasoning: null });
  });
  it("moves a <think> block into reasoning and keeps the rest as text", () => {
    expect(splitReasoning("<think>\nadd 1 and 2\n</think>\n\nThe answer is \\boxed{3}")).toEqual({
      text: "The answer is \\boxed{3}",
      reasoning: "add 1 and 2",
    });
  });
  it("joins several blocks and the text between them", () => {
    expect(splitReasoning("<think>a</think>one <think>b</think>two")).toEqual({ text: "one two", reasoning: "a\n\nb" });
  });
  it("treats an unclosed block (cut by maxTokens) as reasoning with empty text", () => {
    expect(splitReasoning("<think>still thinking about \\boxed{1}")).toEqual({ text: "", reasoning: "still thinking about \\boxed{1}" });
  });
  it("handles a closing tag without an opening one (the template opened it in the prompt)", () => {
    expect(splitReasoning("plan the move</think>\\boxed{up}")).toEqual({ text: "\\boxed{up}", reasoning: "plan the move" });
  });
  it("gives an empty reasoning string for an empty block, distinguishing it from no block", () => {
    expect(splitReasoning("<think></think>ok")).toEqual({ text: "ok", reasoning: "" });
  });
});

describe("splitReasoning on gpt-oss harmony channels", () => {
  it("analysis and preamble commentary are reasoning; only the final channel is text", () => {
    const raw =
      "<|channel|>analysis<|message|>Think about the door.<|end|><|start|>assistant<|channel|>commentary<|message|>Let me look.<|end|>" +
      "<|start|>assistant<|channel|>final<|message|>\\boxed{open}<|return|>";
    expect(splitReasoning(raw)).toEqual({ text: "\\boxed{open}", reasoning: "Think about the door.\n\nLet me look." });
  });
  it("keeps a message addressed to a tool in the text, for the tool-call parser", () => {
    const raw = '<|channel|>analysis<|message|>Use the tool.<|end|><|start|>assistant<|channel|>commentary to=functions.look <|constrain|>json<|message|>{"at":"door"}<|call|>';
    expect(splitReasoning(raw)).toEqual({ text: '<|channel|>commentary to=functions.look <|constrain|>json<|message|>{"at":"door"}<|call|>', reasoning: "Use the tool." });
  });
  it("text before any channel header counts as the reply", () => {
    expect(splitReasoning("plain answer<|channel|>analysis<|message|>late thought")).toEqual({ text: "plain answer", reasoning: "late thought" });
  });
});
