import { describe, expect, it } from "vitest";
import { splitReplyBlocks } from "../../../renderer/src/features/environments/lib/splitReplyBlocks.js";

describe("splitReplyBlocks", () => {
  it("keeps a story without fences as one text block", () => {
    expect(splitReplyBlocks("Once upon a time there was a dog.\n\nThe end.")).toEqual([{ kind: "text", text: "Once upon a time there was a dog.\n\nThe end." }]);
  });

  it("splits text and fenced code, with the language", () => {
    expect(splitReplyBlocks("Here it is:\n```python\nclass A:\n    pass\n```\nDone.")).toEqual([
      { kind: "text", text: "Here it is:" },
      { kind: "code", language: "python", code: "class A:\n    pass", closed: true },
      { kind: "text", text: "Done." },
    ]);
  });

  it("runs an unclosed fence (a reply cut off by max tokens) to the end", () => {
    expect(splitReplyBlocks("```py\nclass B:\n    def reset(self")).toEqual([{ kind: "code", language: "py", code: "class B:\n    def reset(self", closed: false }]);
  });
});
