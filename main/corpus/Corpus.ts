import type { SkippedLines } from "./SkippedLines.js";

/** How a corpus is stored on disk. */
export type CorpusFormat = "jsonl" | "parquet" | "text" | "folder";

/** One grounding document. */
export interface CorpusDocument {
  /**
   * Stable across runs and machines for the same file: `<file>:<n>:<hash>`, where `<file>` is the
   * file's name (its path inside a folder corpus), `<n>` where the document is in that file (the
   * 1-based line it starts on in a JSONL or text file, as an editor numbers lines; the 0-based row
   * in a Parquet file), and `<hash>` the first 8 hex digits of the SHA-256 of its text (so two
   * corpora with the same file name never share an id for different text).
   */
  id: string;
  /** Position in the whole corpus (0 .. count-1). */
  index: number;
  /** The title when the format has one (a heading, a `title` field or column), else null. */
  title: string | null;
  text: string;
  /** The file it was read from. */
  file: string;
}

/**
 * A corpus opened for random access. Opening builds a small index (byte offsets, row counts);
 * documents are read from disk one at a time, so a multi-GB corpus is never loaded whole.
 */
export interface Corpus {
  /** The path it was opened from. */
  readonly path: string;
  readonly format: CorpusFormat;
  /** Number of documents. Always at least 1. */
  readonly count: number;
  /** What indexing left out (invalid JSONL lines), counted, the first few named by file and line. */
  readonly skipped: SkippedLines;
  /** Reads document `index` (0 .. count-1). */
  get(index: number): Promise<CorpusDocument>;
  /** Reads one document drawn uniformly with `rng` (a float stream in [0, 1), e.g. `createRng(seed)`). */
  sample(rng: () => number): Promise<CorpusDocument>;
}
