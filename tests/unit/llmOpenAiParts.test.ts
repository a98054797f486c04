import { describe, expect, it } from "vitest";
import { readSseEvents } from "../../main/llm/openai/readSseEvents.js";
import { retryDelay } from "../../main/llm/openai/retryDelay.js";
import { placeInLine, Semaphore } from "../../main/util/Semaphore.js";

function bodyOf(...parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const events: string[] = [];
  for await (const data of readSseEvents(body)) events.push(data);
  return events;
}

describe("readSseEvents", () => {
  it("yields data payloads across chunk boundaries, CRLF lines, comments and multi-line data", async () => {
    expect(await collect(bodyOf('data: {"a":', "1}\n\n: keep-alive\n\nevent: x\r\ndata: line1\r\ndata: line2\r\n\r\ndata:[DONE]\n\n"))).toEqual(['{"a":1}', "line1\nline2", "[DONE]"]);
  });
  it("yields a last event that lacks the closing blank line", async () => {
    expect(await collect(bodyOf("data: first\n\ndata: last"))).toEqual(["first", "last"]);
  });
});

describe("retryDelay", () => {
  it("honours Retry-After in seconds or as an HTTP date, capped", () => {
    expect(retryDelay(0, 500, "2")).toBe(2000);
    expect(retryDelay(3, 500, new Date(10_000).toUTCString(), 60_000, 7_000)).toBe(3000);
    expect(retryDelay(0, 500, "3600")).toBe(60_000);
  });
  it("backs off exponentially with at most 10% jitter", () => {
    for (const attempt of [0, 1, 2, 3]) {
      const delay = retryDelay(attempt, 100, null);
      expect(delay).toBeGreaterThanOrEqual(100 * 2 ** attempt);
      expect(delay).toBeLessThanOrEqual(110 * 2 ** attempt);
    }
    expect(retryDelay(0, 500, "soon")).toBeGreaterThanOrEqual(500);
  });
});

describe("Semaphore", () => {
  it("admits up to the limit, queues the rest in order, and drops aborted waiters", async () => {
    const semaphore = new Semaphore(2);
    expect(await semaphore.acquire()).toBe(true);
    expect(await semaphore.acquire()).toBe(true);
    const order: string[] = [];
    const controller = new AbortController();
    const a = semaphore.acquire().then((ok) => order.push(`a:${ok}`));
    const b = semaphore.acquire(controller.signal).then((ok) => order.push(`b:${ok}`));
    const c = semaphore.acquire().then((ok) => order.push(`c:${ok}`));
    controller.abort();
    await b;
    semaphore.release();
    semaphore.release();
    await Promise.all([a, c]);
    expect(order).toEqual(["b:false", "a:true", "c:true"]);
    expect(semaphore.active).toBe(2);
    expect(() => new Semaphore(0)).toThrow(/positive integer, got 0/);
  });

  it("serves a waiting caller of higher priority first, arrival order within a priority, an aborted one never", async () => {
    const semaphore = new Semaphore(1);
    expect(await semaphore.acquire()).toBe(true);
    const order: string[] = [];
    const controller = new AbortController();
    const waiters = [
      semaphore.acquire(undefined, 0).then(() => order.push("first turn, early")),
      semaphore.acquire(undefined, 2).then(() => order.push("third turn")),
      semaphore.acquire(controller.signal, 5).then((ok) => order.push(`aborted:${ok}`)),
      semaphore.acquire(undefined, 1).then(() => order.push("second turn, early")),
      semaphore.acquire().then(() => order.push("first turn, late")),
      semaphore.acquire(undefined, 1).then(() => order.push("second turn, late")),
    ];
    expect(semaphore.waiting).toBe(6);
    controller.abort();
    expect(semaphore.waiting).toBe(5);
    for (let i = 0; i < 5; i++) {
      semaphore.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waiters);
    expect(order).toEqual(["aborted:false", "third turn", "second turn, early", "second turn, late", "first turn, early", "first turn, late"]);
    expect(semaphore.active).toBe(1);
  });

  it("places a waiter behind every waiter of its priority or higher", () => {
    const line = [5, 3, 3, 1].map((priority) => ({ priority }));
    expect([6, 5, 3, 2, 1, 0].map((priority) => placeInLine(line, priority))).toEqual([0, 1, 3, 3, 4, 4]);
    expect(placeInLine([], 0)).toBe(0);
  });
});
