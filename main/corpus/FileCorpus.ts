import type { Corpus, CorpusDocument, CorpusFormat } from "./Corpus.js";
import { sampleIndex } from "./sampleIndex.js";
import { noneSkipped, type SkippedLines } from "./SkippedLines.js";

/**
 * What each single-file reader provides: its documents addressed by position. `name` is how the
 * file appears in document ids (its base name, or its path inside a folder corpus).
 */
export abstract class FileCorpus implements Corpus {
  abstract readonly format: CorpusFormat;
  abstract readonly count: number;
  /** Parts of the file indexing left out (JSONL lines that are not documents). Defaults to none. */
  readonly skipped: SkippedLines = noneSkipped;

  constructor(
    readonly path: string,
    readonly name: string,
  ) {}

  abstract get(index: number): Promise<CorpusDocument>;

  sample(rng: () => number): Promise<CorpusDocument> {
    return this.get(sampleIndex(rng, this.count));
  }
}
