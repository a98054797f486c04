import { open } from "node:fs/promises";

/** Bytes [start, end) of a file as UTF-8 text (a leading byte-order mark removed). */
export async function readRange(path: string, start: number, end: number): Promise<string> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(end - start);
    let done = 0;
    while (done < buffer.length) {
      const { bytesRead } = await handle.read(buffer, done, buffer.length - done, start + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    const text = buffer.toString("utf8", 0, done);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } finally {
    await handle.close();
  }
}
