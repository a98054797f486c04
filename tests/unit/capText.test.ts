import { describe, expect, it } from "vitest";
import { capText, TEXT_CAPS } from "../../main/sandbox/capText.js";

describe("capText", () => {
  it("keeps a text within the limit and cuts a longer one, saying what, how long and the limit", () => {
    expect(capText("abc", 3, "hint")).toBe("abc");
    expect(capText("abcdef", 3, "hint")).toBe("abc\n[hint truncated: 6 characters exceed the 3 character limit]");
  });

  it("keeps a text the harness already cut to the same limit, and cuts anything else that only looks cut", () => {
    const cut = capText("h".repeat(10_000), TEXT_CAPS.hint, "hint");
    expect(capText(cut, TEXT_CAPS.hint, "hint")).toBe(cut);
    // The note of another text, a length under the limit or anything after the note is not the harness's: cut again.
    for (const text of [cut.replace("[hint", "[solution"), `${"h".repeat(TEXT_CAPS.hint)}\n[hint truncated: 5 characters exceed the ${TEXT_CAPS.hint} character limit]`, `${cut}x`]) {
      expect(capText(text, TEXT_CAPS.hint, "hint")).toBe(`${text.slice(0, TEXT_CAPS.hint)}\n[hint truncated: ${text.length} characters exceed the ${TEXT_CAPS.hint} character limit]`);
    }
  });
});
