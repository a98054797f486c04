import { open } from "node:fs/promises";

/**
 * Called for every line: its byte range (`end` excludes the newline) and its first bytes (at most
 * `headBytes`, without the newline). `head` is only valid during the call.
 */
export type LineVisitor = (start: number, end: number, head: Buffer) => void;

export interface ScanLinesOptions {
  /** Bytes read at a time. Defaults to 4 MiB. */
  chunkBytes?: number;
  /** How much of each line's start is passed to the visitor. Defaults to 4096. */
  headBytes?: number;
}

/**
 * Streams a file once and reports where each line is, without holding more than one chunk (and
 * one line head) in memory. Returns the file size.
 */
export async function scanLines(path: string, visit: LineVisitor, options: ScanLinesOptions = {}): Promise<number> {
  const chunkBytes = options.chunkBytes ?? 4 * 1024 * 1024;
  const headBytes = options.headBytes ?? 4096;
  const handle = await open(path, "r");
  try {
    const chunk = Buffer.allocUnsafe(chunkBytes);
    let base = 0;
    let lineStart = 0;
    // The head of a line that began in an earlier chunk (copied: the chunk buffer is reused).
    let pending: Buffer | null = null;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, base);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      let pos = 0;
      for (;;) {
        const newline = data.indexOf(10, pos);
        const stop = newline === -1 ? bytesRead : newline;
        const room = headBytes - (pending?.length ?? 0);
        const piece = data.subarray(pos, Math.min(stop, pos + Math.max(0, room)));
        if (newline === -1) {
          if (piece.length > 0) pending = pending ? Buffer.concat([pending, piece]) : Buffer.from(piece);
          break;
        }
        visit(lineStart, base + newline, pending ? Buffer.concat([pending, piece]) : piece);
        pending = null;
        pos = newline + 1;
        lineStart = base + pos;
      }
      base += bytesRead;
    }
    if (lineStart < base) visit(lineStart, base, pending ?? Buffer.alloc(0));
    return base;
  } finally {
    await handle.close();
  }
}
