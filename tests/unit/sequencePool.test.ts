// The local backend's line for its context sequences: a higher priority first, arrival order within
// one (the same rule as the OpenAI backend's request limit). The context is a stand-in with the
// members SequencePool uses (node-llama-cpp's LlamaContext: totalSequences, getSequence, dispose;
// LlamaContextSequence.compareContextTokens), so the order is checked without loading a model.
import type { LlamaContext, LlamaContextSequence, Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { SequencePool } from "../../main/llm/llama/SequencePool.js";

function contextOf(sequences: number): LlamaContext {
  const context = {
    totalSequences: sequences,
    getSequence: () => ({ compareContextTokens: () => ({ firstDifferentIndex: 0 }) }) as unknown as LlamaContextSequence,
    dispose: async () => undefined,
  };
  return context as unknown as LlamaContext;
}

describe("SequencePool", () => {
  it("lends a freed sequence to the waiting call of highest priority, arrival order within one", async () => {
    const pool = new SequencePool(contextOf(1));
    const tokens: Token[] = [];
    const held = (await pool.acquire(tokens))!;
    const order: string[] = [];
    const controller = new AbortController();
    const waiting = [
      pool.acquire(tokens, undefined, 0).then((sequence) => (order.push("first turn"), sequence)),
      pool.acquire(tokens, controller.signal, 9).then((sequence) => (order.push(`aborted:${sequence === null}`), sequence)),
      pool.acquire(tokens, undefined, 2).then((sequence) => (order.push("third turn"), sequence)),
      pool.acquire(tokens, undefined, 1).then((sequence) => (order.push("second turn, early"), sequence)),
      pool.acquire(tokens).then((sequence) => (order.push("first turn, late"), sequence)),
      pool.acquire(tokens, undefined, 1).then((sequence) => (order.push("second turn, late"), sequence)),
    ];
    controller.abort();
    let sequence = held;
    for (let i = 0; i < 5; i++) {
      pool.release(sequence);
      await new Promise((resolve) => setImmediate(resolve));
      sequence = held;
    }
    await Promise.all(waiting);
    expect(order).toEqual(["aborted:true", "third turn", "second turn, early", "second turn, late", "first turn", "first turn, late"]);
    expect(pool.active).toBe(1);
  });
});
