import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { SkippedLines } from "./SkippedLines.js";

/** A line-oriented corpus file's index: where each usable document is and which lines were left out. */
export interface LineIndex {
  /** Byte offsets: [start, end, line number] per document. */
  entries: Float64Array;
  skipped: SkippedLines;
}

interface Header {
  format: "spade-line-index";
  /** 2: messages with control characters escaped and the text field's type named. */
  version: 2;
  /** What the index was built from: a changed size or modification time makes it stale. */
  size: number;
  mtimeMs: number;
  documents: number;
  skipped: SkippedLines;
}

/**
 * The offset index of a corpus file, cached in a cache folder (the workspace's, see
 * `corpusCacheDir`; never beside the user's corpus), named after the file and a hash of its path
 * and checked against the file's size and modification time: a multi-GB corpus is scanned once,
 * not on every open. A stale, damaged or unreadable index is rebuilt; a cache that cannot be
 * written only costs the next open a scan.
 */
export class LineIndexCache {
  private constructor(
    private readonly file: string,
    private readonly size: number,
    private readonly mtimeMs: number,
  ) {}

  /** The cache entry of corpus file `path` in `cacheDir`. */
  static for(path: string, cacheDir: string): LineIndexCache {
    const info = statSync(path);
    const key = createHash("sha256").update(resolve(path)).digest("hex").slice(0, 16);
    return new LineIndexCache(join(cacheDir, `${basename(path)}-${key}.spade-index`), info.size, info.mtimeMs);
  }

  read(): LineIndex | null {
    return this.readOne(this.file);
  }

  write(index: LineIndex): void {
    const header: Header = { format: "spade-line-index", version: 2, size: this.size, mtimeMs: this.mtimeMs, documents: index.entries.length / 3, skipped: index.skipped };
    const head = Buffer.from(`${JSON.stringify(header)}\n`, "utf8");
    const body = Buffer.from(index.entries.buffer, index.entries.byteOffset, index.entries.byteLength);
    const temporary = `${this.file}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      writeFileSync(temporary, Buffer.concat([head, Buffer.alloc((8 - (head.length % 8)) % 8, 0x20), body]));
      renameSync(temporary, this.file);
    } catch {
      // Not writable: the next open scans the file again.
      rmSync(temporary, { force: true });
    }
  }

  private readOne(candidate: string): LineIndex | null {
    let bytes: Buffer;
    try {
      bytes = readFileSync(candidate);
    } catch {
      return null;
    }
    const newline = bytes.indexOf(10);
    if (newline === -1) return null;
    let header: Header;
    try {
      header = JSON.parse(bytes.subarray(0, newline).toString("utf8")) as Header;
    } catch {
      return null;
    }
    if (header.format !== "spade-line-index" || header.version !== 2 || header.size !== this.size || header.mtimeMs !== this.mtimeMs) return null;
    let start = newline + 1;
    start += (8 - (start % 8)) % 8;
    const length = header.documents * 3;
    if (bytes.length !== start + length * 8) return null;
    const entries = new Float64Array(length);
    new Uint8Array(entries.buffer).set(bytes.subarray(start));
    return { entries, skipped: header.skipped };
  }
}
