import { describe, expect, it } from "vitest";
import { applyPages, changedPages, copyPages, DIFF_BYTES, PAGE_BYTES, restorePages, savePages, savePagesAt, zeroPages } from "../../main/sandbox/child/sparseMemory.mjs";

const MIB = 1024 * 1024;

/** A deterministic memory of `pages` pages (and a partial one) where the pages marked "x" hold bytes and "0" are zero. */
function memoryOf(pattern: string, seed: number): Uint8Array {
  const bytes = new Uint8Array(pattern.length * PAGE_BYTES - 100);
  let state = seed;
  for (let page = 0; page < pattern.length; page++) {
    if (pattern[page] !== "x") continue;
    for (let offset = page * PAGE_BYTES; offset < Math.min((page + 1) * PAGE_BYTES, bytes.length); offset += 97) {
      state = (state * 1103515245 + 12345) >>> 0;
      bytes[offset] = (state >>> 16) & 0xff || 1;
    }
  }
  return bytes;
}

/** The resident memory of this process, in bytes (Linux), after a moment for the kernel's counters. */
function residentBytes(): number {
  return process.memoryUsage.rss();
}

describe("sparse memory copies", () => {
  const cases: Array<[string, string]> = [
    ["x0x00xx0x", "0xx0x00xx"],
    ["000000000", "xxxxxxxxx"],
    ["xxxxxxxxx", "000000000"],
    ["0x0x0x0x0", "x0x0x0x0x"],
  ];

  it.each(cases)("copyPages(%s over %s) leaves exactly what a full copy leaves, and reports the non-zero runs", (source, target) => {
    const from = memoryOf(source, 1);
    const to = memoryOf(target, 2);
    const expected = to.slice();
    expected.set(from);
    const runs = copyPages(to, from);
    expect(Buffer.from(to).equals(Buffer.from(expected))).toBe(true);
    const covered = new Uint8Array(from.length);
    for (let index = 0; index < runs.length; index += 2) covered.fill(1, runs[index], runs[index + 1]);
    for (let page = 0; page < source.length; page++) expect(covered[page * PAGE_BYTES]).toBe(source[page] === "x" ? 1 : 0);
  });

  it.each(cases)("restorePages(saved %s into a dirty %s) gives the saved bytes followed by zeros", (saved, live) => {
    const original = memoryOf(saved, 3);
    const copy = savePages(original, { size: original.length + 3 * PAGE_BYTES });
    expect(copy.bytes.length).toBe(original.length + 3 * PAGE_BYTES);
    const heap = new Uint8Array(original.length + 2 * PAGE_BYTES + 10);
    heap.set(memoryOf(live, 4));
    heap.fill(9, original.length - 5);
    restorePages(heap, copy);
    const expected = new Uint8Array(heap.length);
    expected.set(original);
    expect(Buffer.from(heap).equals(Buffer.from(expected))).toBe(true);
  });

  it("saves into a reused buffer exactly, whatever it held before", () => {
    const first = memoryOf("xxxxxxx", 5);
    const second = memoryOf("x00x0x0", 6);
    const saved = savePages(first);
    const again = savePages(second, { into: saved.bytes });
    expect(again.bytes).toBe(saved.bytes);
    expect(Buffer.from(again.bytes.subarray(0, again.length)).equals(Buffer.from(second))).toBe(true);
    expect(savePages(memoryOf("xxxxxxxx", 7), { into: saved.bytes }).bytes).not.toBe(saved.bytes);
  });

  it("zeroPages leaves exactly what fill(0) leaves", () => {
    const bytes = memoryOf("x0xx0x", 8);
    const expected = bytes.slice();
    expected.fill(0, PAGE_BYTES + 7, bytes.length - 3);
    zeroPages(bytes, PAGE_BYTES + 7, bytes.length - 3);
    expect(Buffer.from(bytes).equals(Buffer.from(expected))).toBe(true);
  });

  it("refuses a copy longer than its source or target", () => {
    expect(() => copyPages(new Uint8Array(10), new Uint8Array(20))).toThrow(RangeError);
    expect(() => restorePages(new Uint8Array(10), savePages(new Uint8Array(20)))).toThrow(RangeError);
  });

  // A page never written is not resident; a full copy (or a restore that writes every page) makes
  // all of a copy resident, these only the non-zero pages.
  it.runIf(process.platform === "linux")("keeps the zero pages of a copy and of a restore out of resident memory", () => {
    const size = 256 * MIB;
    const source = new Uint8Array(size);
    for (let offset = 0; offset < size; offset += 16 * MIB) source[offset + 5] = 1;
    let before = residentBytes();
    const saved = savePages(source);
    expect(residentBytes() - before).toBeLessThan(16 * MIB);
    const heap = new Uint8Array(size + 64 * MIB);
    before = residentBytes();
    restorePages(heap, saved);
    restorePages(heap, saved);
    expect(residentBytes() - before).toBeLessThan(16 * MIB);
    expect(heap[16 * MIB + 5]).toBe(1);
    // A page dirtied in the zero part is put back to zero, and only it is written.
    heap[100 * MIB] = 7;
    restorePages(heap, saved);
    expect(heap[100 * MIB]).toBe(0);
    expect(residentBytes() - before).toBeLessThan(16 * MIB);
  });
});

describe("parking a play as the pages it changed from the base", () => {
  /** `memory` with the pages at `indexes` changed (one byte each, and a page zeroed where asked). */
  const changed = (memory: Uint8Array, indexes: number[], zeroed: number[] = []) => {
    const copy = memory.slice();
    for (const page of indexes) copy[page * PAGE_BYTES + 5] = (copy[page * PAGE_BYTES + 5]! + 1) & 0xff || 7;
    for (const page of zeroed) copy.fill(0, page * PAGE_BYTES, (page + 1) * PAGE_BYTES);
    return copy;
  };

  it("finds exactly the small pages that differ, past the base's length against zeros", () => {
    const perPage = PAGE_BYTES / DIFF_BYTES;
    const smallPagesOf = (page: number) => Array.from({ length: perPage }, (_, index) => page * PAGE_BYTES + index * DIFF_BYTES);
    const base = savePages(memoryOf("x0x0xxx0", 3));
    const grown = new Uint8Array(12 * PAGE_BYTES);
    grown.set(changed(memoryOf("x0x0xxx0", 3), [1, 4], [6]));
    grown[10 * PAGE_BYTES + 3] = 9;
    // One byte changed: its small page only; a page of bytes zeroed: each of its small pages.
    expect(changedPages(grown, base)).toEqual([PAGE_BYTES, 4 * PAGE_BYTES, ...smallPagesOf(6), 10 * PAGE_BYTES]);
    // Page 7 straddles the base's end (its last 100 bytes are past it, zero): unchanged until one of them is not.
    grown[8 * PAGE_BYTES - 50] = 1;
    expect(changedPages(grown, base)).toEqual([PAGE_BYTES, 4 * PAGE_BYTES, ...smallPagesOf(6), 8 * PAGE_BYTES - DIFF_BYTES, 10 * PAGE_BYTES]);
    const flipped = 5 * PAGE_BYTES + 3 * DIFF_BYTES + 7;
    grown[flipped] = grown[flipped]! ^ 0xff;
    expect(changedPages(grown, base)).toContain(5 * PAGE_BYTES + 3 * DIFF_BYTES);
    expect(changedPages(grown, base)).not.toContain(5 * PAGE_BYTES);
  });

  it("switching from one parked play to another leaves exactly the other's memory, as a full restore does", () => {
    const original = memoryOf("x0x0xxx0x", 11);
    const base = savePages(original);
    const playA = new Uint8Array(10 * PAGE_BYTES);
    playA.set(changed(original, [0, 3, 8], [2]));
    playA[9 * PAGE_BYTES + 1] = 4; // grown past the base
    const playB = new Uint8Array(10 * PAGE_BYTES);
    playB.set(changed(original, [3, 5]));
    // B is parked: its changed pages saved into a buffer that held other bytes before.
    const bufferB = new Uint8Array(10 * PAGE_BYTES).fill(0xee);
    const pagesB = changedPages(playB, base);
    savePagesAt(playB, pagesB, bufferB);
    // A is in the interpreter; park it, then put B back.
    const memory = playA.slice();
    const pagesA = changedPages(memory, base);
    applyPages(memory, base, pagesA, pagesB, bufferB);
    expect(Buffer.from(memory).equals(Buffer.from(playB))).toBe(true);
    // And back to the base alone.
    applyPages(memory, base, changedPages(memory, base), [], null);
    const restored = new Uint8Array(10 * PAGE_BYTES).fill(3);
    restorePages(restored, base);
    expect(Buffer.from(memory).equals(Buffer.from(restored))).toBe(true);
  });
});
