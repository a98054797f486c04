import type { Llama } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { defaultThreads } from "../../main/llm/llama/loadLlamaRuntime.js";

describe("defaultThreads", () => {
  it("leaves one core free, never goes below 1 or above 8", () => {
    const cores = (cpuMathCores: number) => defaultThreads({ cpuMathCores } as Llama);
    expect(cores(1)).toBe(1);
    expect(cores(2)).toBe(1);
    expect(cores(4)).toBe(3);
    expect(cores(32)).toBe(8);
  });
});
