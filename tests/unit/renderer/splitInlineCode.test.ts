import { describe, expect, it } from "vitest";
import { plainText, splitInlineCode } from "../../../renderer/src/lib/format/splitInlineCode.js";

describe("splitInlineCode", () => {
  it("turns backtick spans into code parts and never keeps a backtick", () => {
    expect(splitInlineCode("raise `backend.contextSize` or `corpus.maxWords`")).toEqual([
      { kind: "text", text: "raise " },
      { kind: "code", text: "backend.contextSize" },
      { kind: "text", text: " or " },
      { kind: "code", text: "corpus.maxWords" },
    ]);
    expect(splitInlineCode("the designer's reply has no ```python code block")).toEqual([
      { kind: "text", text: "the designer's reply has no " },
      { kind: "code", text: "python" },
      { kind: "text", text: " code block" },
    ]);
    expect(splitInlineCode("a stray ` tick")).toEqual([{ kind: "text", text: "a stray  tick" }]);
    expect(splitInlineCode("plain")).toEqual([{ kind: "text", text: "plain" }]);
    expect(plainText("no ```python block, see `x`")).toBe("no python block, see x");
  });
});
