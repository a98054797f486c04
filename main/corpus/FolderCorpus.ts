import type { Corpus, CorpusDocument } from "./Corpus.js";
import { checkIndex } from "./checkIndex.js";
import { sampleIndex } from "./sampleIndex.js";
import { addSkipped, type SkippedLines } from "./SkippedLines.js";

/** A folder of corpus files read as one corpus: the files' documents one after another, in path order. */
export class FolderCorpus implements Corpus {
  readonly format = "folder" as const;
  readonly count: number;
  /** firstIndex[i] is the corpus index of file i's first document. */
  private readonly firstIndex: number[];

  constructor(
    readonly path: string,
    private readonly files: readonly Corpus[],
    /** What indexing left out, of these files and of files that held no document at all. */
    readonly skipped: SkippedLines = addSkipped(files.map((file) => file.skipped)),
  ) {
    this.firstIndex = [];
    let total = 0;
    for (const file of files) {
      this.firstIndex.push(total);
      total += file.count;
    }
    this.count = total;
  }

  async get(index: number): Promise<CorpusDocument> {
    checkIndex(index, this.count, this.path);
    // Binary search for the last file starting at or before `index`.
    let low = 0;
    let high = this.files.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.firstIndex[mid] as number) <= index) low = mid;
      else high = mid - 1;
    }
    const document = await (this.files[low] as Corpus).get(index - (this.firstIndex[low] as number));
    return { ...document, index };
  }

  sample(rng: () => number): Promise<CorpusDocument> {
    return this.get(sampleIndex(rng, this.count));
  }
}
