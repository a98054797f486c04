import type { DocumentSummary } from "../../../../../shared/api/corpusTypes.js";

/** Characters of a label in the document list. */
const LABEL_CHARS = 80;

/** How the corpus list names a document: its title, else the start of its text on one line, else its id. */
export function documentLabel(doc: Pick<DocumentSummary, "id" | "title" | "excerpt">): string {
  if (doc.title?.trim()) return doc.title.trim();
  const text = (doc.excerpt ?? "").replace(/\s+/g, " ").trim();
  if (!text) return doc.id;
  return text.length > LABEL_CHARS ? `${text.slice(0, LABEL_CHARS - 1).trimEnd()}…` : text;
}
