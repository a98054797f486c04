import { basename, extname } from "node:path";
import { headingStyleFor, headingTitle, isFence, type HeadingStyle } from "./articleHeadings.js";
import type { CorpusDocument } from "./Corpus.js";
import { checkIndex } from "./checkIndex.js";
import { documentId } from "./documentId.js";
import { FileCorpus } from "./FileCorpus.js";
import { OffsetList } from "./OffsetList.js";
import { readRange } from "./readRange.js";
import { scanLines } from "./scanLines.js";

const equals = 0x3d;
const hash = 0x23;

/**
 * A plain-text or Markdown file split into articles at its top-level headings (WikiText
 * ` = Title = ` lines in `.txt`, `# Title` in `.md`); the heading is the title and is not part of
 * the text. Text before the first heading is an untitled article of its own; a file without
 * headings is one article titled with the file name. Opening indexes the byte offset of every
 * article heading in one streaming pass. A document's id names the line its article starts on
 * (1-based, as an editor numbers it: the heading's line).
 */
export class TextCorpus extends FileCorpus {
  readonly format = "text" as const;

  private constructor(
    path: string,
    name: string,
    private readonly style: HeadingStyle,
    private readonly starts: OffsetList,
    /** The 1-based line each article starts on, beside `starts`. */
    private readonly lines: OffsetList,
    private readonly size: number,
    /** The file has no headings at all: one article, titled by the file name. */
    private readonly headless: boolean,
  ) {
    super(path, name);
  }

  get count(): number {
    return this.starts.length;
  }

  static async open(path: string, name: string): Promise<TextCorpus> {
    const style = headingStyleFor(path);
    const starts = new OffsetList();
    const lines = new OffsetList();
    let headings = 0;
    let line = 0;
    let preambleHasText = false;
    let inFence = false;
    const size = await scanLines(path, (start, _end, head) => {
      line++;
      const first = firstNonSpace(head);
      if (first === -1) return;
      if (style === "markdown" && (head[first] === 0x60 || head[first] === 0x7e)) {
        if (isFence(head.toString("utf8"))) inFence = !inFence;
      } else if (!inFence && head[first] === (style === "markdown" ? hash : equals) && headingTitle(head.toString("utf8"), style) !== null) {
        headings++;
        starts.push(start);
        lines.push(line);
        return;
      }
      if (headings === 0 && !preambleHasText) preambleHasText = true;
    });
    if (headings === 0) {
      if (preambleHasText) {
        starts.push(0);
        lines.push(1);
      }
      return new TextCorpus(path, name, style, starts, lines, size, true);
    }
    if (preambleHasText) {
      const withPreamble = new OffsetList();
      const preambleLines = new OffsetList();
      withPreamble.push(0);
      preambleLines.push(1);
      for (let i = 0; i < starts.length; i++) {
        withPreamble.push(starts.at(i));
        preambleLines.push(lines.at(i));
      }
      return new TextCorpus(path, name, style, withPreamble, preambleLines, size, false);
    }
    return new TextCorpus(path, name, style, starts, lines, size, false);
  }

  async get(index: number): Promise<CorpusDocument> {
    checkIndex(index, this.count, this.path);
    const end = index + 1 < this.count ? this.starts.at(index + 1) : this.size;
    const raw = await readRange(this.path, this.starts.at(index), end);
    let title: string | null;
    let text = raw;
    if (this.headless) {
      title = basename(this.path, extname(this.path));
    } else {
      const newline = raw.indexOf("\n");
      const firstLine = newline === -1 ? raw : raw.slice(0, newline);
      title = headingTitle(firstLine, this.style);
      if (title !== null) text = newline === -1 ? "" : raw.slice(newline + 1);
    }
    text = text.trim();
    return { id: documentId(this.name, this.lines.at(index), text), index, title, text, file: this.path };
  }
}

/** Index of the first byte that is not a space, tab or carriage return; -1 for a blank line. */
function firstNonSpace(head: Buffer): number {
  for (let i = 0; i < head.length; i++) {
    const byte = head[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return i;
  }
  return -1;
}
