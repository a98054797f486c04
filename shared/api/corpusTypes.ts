// Grounding documents, as the corpus browser shows them.
import type { EnvironmentListItem } from "./environmentTypes.js";

export interface DocumentSummary {
  id: string;
  corpus: string | null;
  title: string | null;
  words: number | null;
  /** Environments whose designer prompt carried this document. */
  environments: number;
}

export interface DocumentPage {
  total: number;
  offset: number;
  items: DocumentSummary[];
}

export interface DocumentDetail extends DocumentSummary {
  text: string;
  environmentList: EnvironmentListItem[];
}
