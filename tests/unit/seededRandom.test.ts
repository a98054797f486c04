import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRng, deriveSeed, seededRandom } from "../../main/util/seededRandom.js";

describe("deriveSeed", () => {
  it("is a uint32 from SHA-256 of the typed, length-prefixed parts", () => {
    const expected = createHash("sha256").update("3:n42;9:sdocument;2:n0;").digest().readUInt32BE(0);
    expect(deriveSeed(42, "document", 0)).toBe(expected);
    expect(Number.isInteger(expected) && expected >= 0 && expected < 2 ** 32).toBe(true);
  });

  it("separates parts that would concatenate alike", () => {
    expect(deriveSeed(1, 23)).not.toBe(deriveSeed(12, 3));
    expect(deriveSeed("1", 2)).not.toBe(deriveSeed(1, 2));
    expect(deriveSeed(7, "play", 0, 1)).not.toBe(deriveSeed(7, "play", 1, 0));
  });
});

describe("createRng", () => {
  it("gives the same stream for the same seed and a different one otherwise", () => {
    const a = createRng(123);
    const b = createRng(123);
    const c = createRng(124);
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(first);
  });

  it("matches mulberry32's reference output and stays in [0, 1) with a flat histogram", () => {
    // mulberry32(0) first outputs, as published with the algorithm.
    const rng = createRng(0);
    expect(Math.round(rng() * 4294967296)).toBe(1144304738);
    const sampler = seededRandom("histogram");
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 20000; i++) {
      const x = sampler();
      expect(x >= 0 && x < 1).toBe(true);
      counts[Math.floor(x * 10)]!++;
    }
    for (const count of counts) expect(Math.abs(count - 2000)).toBeLessThan(200);
  });
});
