// @ts-check
// Exact copies of the interpreter's memory that leave zero pages alone.
//
// About half of a ready interpreter's 30 MiB WebAssembly memory is zero. A page of memory that was
// never written is not resident: the kernel maps every read of it to one shared zero page. A full
// copy (`target.set(source)`) writes every page of its target, so each copy the sandbox child keeps
// (the base every play starts from, the pristine copy of a recyclable child, a parked play's
// buffer) and the interpreter's memory itself after a restore held the zero half as well.
//
// `copyPages` writes the same bytes as a full copy but, page by page, skips a page that is zero in
// the source unless the target's page is not zero (then it writes zeros there): a page that is zero
// and stays zero is only ever read, never written. A fresh `new Uint8Array(n)` (calloc'd, untouched)
// is all zero, so a copy into one makes resident only the source's non-zero pages. The checks are
// native comparisons of a page against a zero page (memcmp), consecutive pages copied or zeroed in
// one call.

/**
 * Bytes per page compared and copied. 64 KiB (WebAssembly's page) rather than the kernel's 4 KiB:
 * the zero part of the interpreter's memory is a few large runs (64 KiB pages find 14.2 of the
 * 14.9 MiB that 4 KiB pages find in the snapshot image), and a 16th of the native calls makes a
 * restore of that image cheaper: 4.9-5.9 ms of CPU against 6.2-9.4 ms with 4 KiB pages, measured
 * side by side on a loaded machine.
 */
export const PAGE_BYTES = 64 * 1024;

const zeroPage = Buffer.alloc(PAGE_BYTES);

/** A Buffer over the same bytes (no copy), for the native compare, copy and fill. */
function bytesOf(/** @type {Uint8Array} */ view) {
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
}

/** True when bytes [start, end) of `bytes` (at most one page) are all zero. */
function zeroAt(/** @type {Buffer} */ bytes, /** @type {number} */ start, /** @type {number} */ end) {
  return zeroPage.compare(bytes, start, end, 0, end - start) === 0;
}

/**
 * The [start, end) byte ranges of the non-zero pages in `bytes`' first `length` bytes, flat, each
 * run of consecutive non-zero pages one range.
 * @param {Buffer} bytes
 * @param {number} length
 * @returns {number[]}
 */
function nonZeroRuns(bytes, length) {
  /** @type {number[]} */
  const runs = [];
  let runFrom = -1;
  for (let start = 0; start < length; start += PAGE_BYTES) {
    const zero = zeroAt(bytes, start, Math.min(start + PAGE_BYTES, length));
    if (!zero && runFrom < 0) runFrom = start;
    if (zero && runFrom >= 0) {
      runs.push(runFrom, start);
      runFrom = -1;
    }
  }
  if (runFrom >= 0) runs.push(runFrom, length);
  return runs;
}

/**
 * Makes `target`'s first `length` bytes those of `source`, whose non-zero pages are `runs` (every
 * other byte of `source` below `length` is zero): each run copied in one call, and in between only
 * the target's pages that are not zero written (zeros).
 * @param {Uint8Array} target
 * @param {Uint8Array} source
 * @param {number[]} runs
 * @param {number} length
 */
function writeRuns(target, source, runs, length) {
  const to = bytesOf(target);
  const from = bytesOf(source);
  let at = 0;
  for (let index = 0; index < runs.length; index += 2) {
    const start = /** @type {number} */ (runs[index]);
    const end = /** @type {number} */ (runs[index + 1]);
    zeroPages(target, at, start);
    from.copy(to, start, start, end);
    at = end;
  }
  zeroPages(target, at, length);
}

/**
 * Makes `target`'s first `length` bytes equal to `source`'s (exactly what
 * `target.set(source.subarray(0, length))` leaves) without writing a page that is zero in both.
 * @param {Uint8Array} target
 * @param {Uint8Array} source
 * @param {number} [length] Defaults to the source's length.
 * @returns {number[]} the [start, end) byte ranges of the source's non-zero pages, flat
 */
export function copyPages(target, source, length = source.length) {
  if (length > source.length || length > target.length) throw new RangeError(`cannot copy ${length} bytes from ${source.length} into ${target.length}`);
  const runs = nonZeroRuns(bytesOf(source), length);
  writeRuns(target, source, runs, length);
  return runs;
}

/**
 * Zeroes bytes [start, end) of `target` (exactly what `target.fill(0, start, end)` leaves) without
 * writing a page that is zero already.
 * @param {Uint8Array} target
 * @param {number} start
 * @param {number} [end] Defaults to the target's length.
 */
export function zeroPages(target, start, end = target.length) {
  const to = bytesOf(target);
  let zeroFrom = -1;
  for (let at = start; at < end; at += PAGE_BYTES) {
    const stop = Math.min(at + PAGE_BYTES, end);
    if (zeroAt(to, at, stop)) {
      if (zeroFrom >= 0) to.fill(0, zeroFrom, at);
      zeroFrom = -1;
    } else if (zeroFrom < 0) {
      zeroFrom = at;
    }
  }
  if (zeroFrom >= 0) to.fill(0, zeroFrom, end);
}

/**
 * A saved copy of (the start of) a memory: `bytes`, of which the first `length` are the saved
 * memory, and `runs`, the [start, end) byte ranges of its non-zero pages (every other page of the
 * first `length` bytes is zero), so that putting it back compares only the target's pages.
 * @typedef {{ bytes: Uint8Array, length: number, runs: number[] }} SavedPages
 */

/**
 * Saves `source`'s first `length` bytes: into `into` when given and large enough (written
 * exactly, zero pages that stay zero untouched), else into a new zero-filled buffer of
 * max(`length`, `size`) bytes, of which only the source's non-zero pages become resident.
 * @param {Uint8Array} source
 * @param {{ length?: number, size?: number, into?: Uint8Array | null }} [options] `length` defaults
 *   to the source's length, `size` to `length`, `into` to none.
 * @returns {SavedPages}
 */
export function savePages(source, options = {}) {
  const length = options.length ?? source.length;
  const into = options.into && options.into.length >= length ? options.into : null;
  const bytes = into ?? new Uint8Array(Math.max(length, options.size ?? length));
  return { bytes, length, runs: copyPages(bytes, source, length) };
}

/** The bytes of a saved copy's non-zero pages: what of it is resident (at most). */
export function residentBytes(/** @type {SavedPages} */ saved) {
  let total = 0;
  for (let index = 0; index < saved.runs.length; index += 2) total += /** @type {number} */ (saved.runs[index + 1]) - /** @type {number} */ (saved.runs[index]);
  return total;
}

/**
 * Puts a saved memory back: `target` becomes exactly `saved`'s bytes followed by zeros (what
 * `target.set(saved)` and `target.fill(0, saved.length)` leave).
 * @param {Uint8Array} target
 * @param {SavedPages} saved
 */
export function restorePages(target, saved) {
  if (saved.length > target.length) throw new RangeError(`cannot put ${saved.length} saved bytes back into ${target.length}`);
  writeRuns(target, saved.bytes, saved.runs, target.length);
}

/**
 * Bytes per page of a play's difference from the base (`changedPages`, `savePagesAt`,
 * `applyPages`): the kernel's page. The memory is compared a `PAGE_BYTES` page at a time (a 16th
 * of the native calls) and only a page that differs is compared again in these smaller pages. A
 * play's writes are scattered (reference counts, allocator headers): in the one-turn plays of the
 * `regeneration` bench a park found 39 changed 64 KiB pages holding 55 changed 4 KiB pages, so the
 * copies of a park and a switch move about a tenth of the bytes that whole 64 KiB pages would.
 */
export const DIFF_BYTES = 4 * 1024;

/**
 * True when bytes [start, end) of `now` equal those of `was` below `split` and are zero from
 * `split` on (`was` ends there: a restore of it leaves zeros past its end).
 */
function sameAsBase(/** @type {Buffer} */ now, /** @type {Buffer} */ was, /** @type {number} */ start, /** @type {number} */ end, /** @type {number} */ baseLength) {
  const split = Math.min(Math.max(start, baseLength), end);
  return (split === start || now.compare(was, start, split, start, split) === 0) && (split === end || zeroAt(now, split, end));
}

/**
 * The byte offsets of the `DIFF_BYTES` pages where `memory` differs from the saved `base` (its
 * bytes past `base.length` taken as zero, as a restore of it leaves them): only read, never written.
 * @param {Uint8Array} memory
 * @param {SavedPages} base
 * @returns {number[]}
 */
export function changedPages(memory, base) {
  const now = bytesOf(memory);
  const was = bytesOf(base.bytes);
  /** @type {number[]} */
  const pages = [];
  for (let start = 0; start < memory.length; start += PAGE_BYTES) {
    const end = Math.min(start + PAGE_BYTES, memory.length);
    if (sameAsBase(now, was, start, end, base.length)) continue;
    for (let at = start; at < end; at += DIFF_BYTES) if (!sameAsBase(now, was, at, Math.min(at + DIFF_BYTES, end), base.length)) pages.push(at);
  }
  return pages;
}

/**
 * Copies the pages of `memory` at `pages` (byte offsets from `changedPages`) into `into` at the
 * same offsets; the rest of `into` is left as it is (and never read back: see `applyPages`).
 * @param {Uint8Array} memory
 * @param {number[]} pages
 * @param {Uint8Array} into
 */
export function savePagesAt(memory, pages, into) {
  const from = bytesOf(memory);
  const to = bytesOf(into);
  for (const start of pages) from.copy(to, start, start, Math.min(start + DIFF_BYTES, memory.length));
}

/**
 * Makes `memory`, which holds `base` except at the pages `dirty` (the `changedPages` of it), hold
 * `base` except at `pages`, whose bytes are `saved`'s at the same offsets: each page of `dirty` not
 * in `pages` gets `base`'s bytes back (zeros past `base.length`), each page of `pages` `saved`'s.
 * Exactly what a full restore of `base` and a copy of those pages leave, writing only those pages.
 * @param {Uint8Array} memory
 * @param {SavedPages} base
 * @param {number[]} dirty
 * @param {number[]} pages
 * @param {Uint8Array | null} saved
 */
export function applyPages(memory, base, dirty, pages, saved) {
  const to = bytesOf(memory);
  const was = bytesOf(base.bytes);
  const wanted = new Set(pages);
  for (const start of dirty) {
    if (wanted.has(start)) continue;
    const end = Math.min(start + DIFF_BYTES, memory.length);
    const split = Math.min(Math.max(start, base.length), end);
    if (split > start) was.copy(to, start, start, split);
    if (end > split) to.fill(0, split, end);
  }
  if (pages.length === 0) return;
  if (!saved) throw new RangeError("pages to put back need their saved bytes");
  const from = bytesOf(saved);
  for (const start of pages) from.copy(to, start, start, Math.min(start + DIFF_BYTES, memory.length));
}
