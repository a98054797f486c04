import type { CorpusDocument } from "./Corpus.js";
import { CorpusError } from "./CorpusError.js";
import { checkIndex } from "./checkIndex.js";
import { documentId } from "./documentId.js";
import { FileCorpus } from "./FileCorpus.js";
import { OffsetList } from "./OffsetList.js";
import { readRange } from "./readRange.js";
import { scanLines } from "./scanLines.js";

/**
 * A JSON Lines corpus: one JSON object a line with the text in `orig_doc` (read first, as the SPADE
 * reference does) or `text`, and optionally a `title`. Blank lines are skipped. Opening indexes the byte
 * offset of every line; a line is parsed only when its document is read, and a bad line is
 * reported with the file and line number then (the first document is checked at open).
 */
export class JsonlCorpus extends FileCorpus {
  readonly format = "jsonl" as const;

  private constructor(
    path: string,
    name: string,
    private readonly starts: OffsetList,
    private readonly ends: OffsetList,
    private readonly lines: OffsetList,
  ) {
    super(path, name);
  }

  get count(): number {
    return this.starts.length;
  }

  static async open(path: string, name: string): Promise<JsonlCorpus> {
    const starts = new OffsetList();
    const ends = new OffsetList();
    const lines = new OffsetList();
    let line = 0;
    await scanLines(path, (start, end, head) => {
      line++;
      if (isBlank(head)) return;
      starts.push(start);
      ends.push(end);
      lines.push(line);
    });
    return new JsonlCorpus(path, name, starts, ends, lines);
  }

  async get(index: number): Promise<CorpusDocument> {
    checkIndex(index, this.count, this.path);
    const line = this.lines.at(index);
    const where = `${this.path}:${line}`;
    const source = (await readRange(this.path, this.starts.at(index), this.ends.at(index))).trim();
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      throw new CorpusError(`${where}: invalid JSON (${(error as Error).message})`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new CorpusError(`${where}: expected a JSON object with a "text" or "orig_doc" field, found ${Array.isArray(value) ? "an array" : typeof value}`);
    }
    const record = value as Record<string, unknown>;
    // The reference reads `orig_doc` first (SPICE's chunk format keeps the original there).
    const text = typeof record.orig_doc === "string" && record.orig_doc.trim() !== "" ? record.orig_doc : typeof record.text === "string" ? record.text : null;
    if (text === null) {
      const fields = Object.keys(record);
      throw new CorpusError(
        `${where}: expected a string field "text" or "orig_doc"; found ${fields.length ? `fields ${fields.map((f) => `"${f}"`).join(", ")}` : "no fields"}`,
      );
    }
    return {
      id: documentId(this.name, index, text),
      index,
      title: typeof record.title === "string" ? record.title : null,
      text,
      file: this.path,
    };
  }
}

/** True when the bytes are only spaces, tabs and carriage returns (looking at the line's head is enough to see it is not). */
function isBlank(head: Buffer): boolean {
  for (const byte of head) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  return true;
}
