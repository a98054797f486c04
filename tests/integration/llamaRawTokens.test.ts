import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { measureRawTokensPerSec } from "../../main/bench/rawTokens.js";

const stories = resolve(import.meta.dirname, "../../../shared/models/stories260K.gguf");

describe("measureRawTokensPerSec", () => {
  it("generates the requested tokens over parallel sequences and reports a rate", async () => {
    const rate = await measureRawTokensPerSec(stories, { tokens: 64, sequences: 2, threads: 1, gpu: false });
    expect(rate).toBeGreaterThan(0);
    expect(Number.isFinite(rate)).toBe(true);
  });
  it("refuses more tokens per sequence than the model's context holds", async () => {
    await expect(measureRawTokensPerSec(stories, { tokens: 5000, threads: 1, gpu: false })).rejects.toThrow(/5000 tokens per sequence do not fit the model's context of 2048/);
  });
});
