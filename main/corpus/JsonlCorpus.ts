import type { CorpusDocument } from "./Corpus.js";
import { CorpusError } from "./CorpusError.js";
import { checkIndex } from "./checkIndex.js";
import { documentId } from "./documentId.js";
import { escapeControlCharacters } from "./escapeControlCharacters.js";
import { FileCorpus } from "./FileCorpus.js";
import { LineIndexCache, type LineIndex } from "./LineIndexCache.js";
import { OffsetList } from "./OffsetList.js";
import { readRange } from "./readRange.js";
import { scanLines } from "./scanLines.js";
import { maxSkippedExamples, type SkippedLines } from "./SkippedLines.js";

/**
 * A JSON Lines corpus: one JSON object a line with the text in `orig_doc` (the SPADE reference's
 * field, preferred) or `text`, and optionally a `title`. Blank lines are skipped. Opening indexes
 * the byte offset of every line that holds a usable document; lines that do not (invalid JSON, no
 * text field) are counted and left out, the first few named with their line number in `skipped`.
 * The index is cached in the cache folder (see `LineIndexCache`), so a large corpus is scanned once.
 * A document's id names its line (1-based, as an editor numbers it).
 */
export class JsonlCorpus extends FileCorpus {
  readonly format = "jsonl" as const;

  private constructor(
    path: string,
    name: string,
    private readonly entries: Float64Array,
    override readonly skipped: SkippedLines,
  ) {
    super(path, name);
  }

  get count(): number {
    return this.entries.length / 3;
  }

  /** Opens `path`, its index read from (or written to) `cacheDir`. */
  static async open(path: string, name: string, cacheDir: string): Promise<JsonlCorpus> {
    const cache = LineIndexCache.for(path, cacheDir);
    let index = cache.read();
    if (!index) {
      index = await indexLines(path);
      cache.write(index);
    }
    return new JsonlCorpus(path, name, index.entries, index.skipped);
  }

  async get(index: number): Promise<CorpusDocument> {
    checkIndex(index, this.count, this.path);
    const line = this.entries[index * 3 + 2]!;
    const source = await readRange(this.path, this.entries[index * 3]!, this.entries[index * 3 + 1]!);
    const parsed = parseDocument(source);
    if (typeof parsed === "string") throw new CorpusError(escapeControlCharacters(`${this.path}:${line}: ${parsed} (the file changed since it was indexed?)`));
    return { id: documentId(this.name, line, parsed.text), index, title: parsed.title, text: parsed.text, file: this.path };
  }
}

/** Scans the file once, parsing every line: usable documents are indexed, the rest counted. */
async function indexLines(path: string): Promise<LineIndex> {
  const entries = new OffsetList();
  const skipped: SkippedLines = { count: 0, examples: [] };
  let line = 0;
  await scanLines(
    path,
    (start, end, content) => {
      line++;
      if (isBlank(content)) return;
      const parsed = parseDocument(content.toString("utf8"));
      if (typeof parsed === "string") {
        skipped.count++;
        if (skipped.examples.length < maxSkippedExamples) skipped.examples.push(escapeControlCharacters(`${path}:${line}: ${parsed}`));
        return;
      }
      entries.push(start);
      entries.push(end);
      entries.push(line);
    },
    { headBytes: Number.POSITIVE_INFINITY },
  );
  return { entries: entries.toArray(), skipped };
}

/** One line's document, or what is wrong with it. */
function parseDocument(source: string): { text: string; title: string | null } | string {
  let value: unknown;
  try {
    value = JSON.parse(source.trim());
  } catch (error) {
    return `invalid JSON (${(error as Error).message})`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `expected a JSON object with a "text" or "orig_doc" field, found ${kindOf(value)}`;
  }
  const record = value as Record<string, unknown>;
  if (typeof record.orig_doc === "string" && record.orig_doc.trim() !== "") return { text: record.orig_doc, title: titleOf(record) };
  if (typeof record.text === "string") return { text: record.text, title: titleOf(record) };
  // Name the field that is there but is not text, with what it holds instead.
  for (const field of ["text", "orig_doc"]) {
    if (Object.hasOwn(record, field) && typeof record[field] !== "string") return `field ${field} must be a string, found ${kindOf(record[field])}`;
  }
  if (Object.hasOwn(record, "orig_doc")) return "field orig_doc is empty and there is no text field";
  const fields = Object.keys(record);
  return `expected a string field "text" or "orig_doc"; found ${fields.length ? `fields ${fields.map((f) => `"${f}"`).join(", ")}` : "no fields"}`;
}

function titleOf(record: Record<string, unknown>): string | null {
  return typeof record.title === "string" ? record.title : null;
}

/** What a JSON value is, as a message names it ("a number", "null", "an array"). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** True when the bytes are only spaces, tabs and carriage returns (and a byte-order mark). */
function isBlank(content: Buffer): boolean {
  for (let i = 0; i < content.length; i++) {
    const byte = content[i]!;
    if (byte === 0x20 || byte === 0x09 || byte === 0x0d) continue;
    if (i === 0 && content.length >= 3 && byte === 0xef && content[1] === 0xbb && content[2] === 0xbf) {
      i += 2;
      continue;
    }
    return false;
  }
  return true;
}
