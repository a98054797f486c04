import { describe, expect, it } from "vitest";
import { documentLabel } from "../../../renderer/src/features/corpus/lib/documentLabel.js";

describe("documentLabel", () => {
  it("names a document by its title, else the start of its text on one line, else its id", () => {
    expect(documentLabel({ id: "a.jsonl:1:x", title: "Binary search", excerpt: "Binary search halves" })).toBe("Binary search");
    expect(documentLabel({ id: "a.jsonl:2:y", title: null, excerpt: "Short\n\n  text" })).toBe("Short text");
    const long = documentLabel({ id: "a.jsonl:3:z", title: "  ", excerpt: "word ".repeat(40) });
    expect(long.endsWith("…")).toBe(true);
    expect(long.length).toBeLessThanOrEqual(80);
    expect(documentLabel({ id: "a.jsonl:4:w", title: null, excerpt: "  " })).toBe("a.jsonl:4:w");
  });
});
