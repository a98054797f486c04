// Grounding documents, as the corpus browser shows them.
import type { EnvironmentListItem } from "./environmentTypes.js";

export interface DocumentSummary {
  id: string;
  corpus: string | null;
  title: string | null;
  /** The text's first characters: what the corpus browser lists a document by when it has no title. */
  excerpt: string;
  words: number | null;
  /** Environments whose designer prompt carried this document. */
  environments: number;
}

/** Lines of a run's corpus that are not documents and were left out (the first few named by file and line, control characters escaped). */
export interface CorpusProblemView {
  runId: number;
  runName: string;
  message: string;
}

export interface DocumentPage {
  total: number;
  offset: number;
  items: DocumentSummary[];
  /** What the runs' corpora left out, newest run first (empty when nothing was). */
  problems: CorpusProblemView[];
}

export interface DocumentDetail extends DocumentSummary {
  text: string;
  environmentList: EnvironmentListItem[];
}
