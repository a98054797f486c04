import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { likePattern } from "../likePattern.js";
import { statement } from "../statement.js";
import { putRunNote } from "./schedule.js";

/** A grounding document as shown to the designer (already truncated). */
export interface StoredDocument {
  /** The corpus reader's stable id. */
  id: string;
  /** The corpus path it came from. */
  corpus: string;
  title: string | null;
  text: string;
  words: number;
}

export interface DocumentSummary extends Omit<StoredDocument, "text"> {
  createdAt: number;
  /** The text's first characters (the corpus browser lists a document without a title by them). */
  excerpt: string;
  /** How many environments (attempts included) this document grounded. */
  environments: number;
}

export interface DocumentFilter {
  corpus?: string;
  /** Case-insensitive substring of the title or text. */
  search?: string;
  /** Defaults to 100. */
  limit?: number;
  /** Defaults to 0. */
  offset?: number;
}

interface DocumentRow {
  id: string;
  corpus: string;
  title: string | null;
  text: string;
  words: number;
  created_at: number;
  environments: number;
  excerpt?: string;
}

/** Stores a document once: a document id already stored keeps its first text. */
export function upsertDocument(db: WritableDb, document: StoredDocument): void {
  statement(db, `INSERT OR IGNORE INTO documents (id, corpus, title, text, words, created_at) VALUES (?, ?, ?, ?, ?, ?)`).run(
    document.id,
    document.corpus,
    document.title,
    document.text,
    document.words,
    Date.now(),
  );
}

export function getDocument(db: ReadonlyDb, id: string): StoredDocument | null {
  const row = statement(db, `SELECT id, corpus, title, text, words FROM documents WHERE id = ?`).get(id) as DocumentRow | undefined;
  return row ? { id: row.id, corpus: row.corpus, title: row.title, text: row.text, words: row.words } : null;
}

/** Characters of a document's text listed with it. */
const excerptChars = 160;

/** Documents used so far (newest first), with how many environments each grounded: the corpus browser. */
export function listDocuments(db: ReadonlyDb, filter: DocumentFilter = {}): DocumentSummary[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.corpus !== undefined) {
    where.push("d.corpus = ?");
    params.push(filter.corpus);
  }
  if (filter.search) {
    where.push(`(d.title LIKE ? ESCAPE '\\' OR d.text LIKE ? ESCAPE '\\')`);
    const pattern = likePattern(filter.search);
    params.push(pattern, pattern);
  }
  const sql =
    `SELECT d.id, d.corpus, d.title, d.words, d.created_at, substr(d.text, 1, ${excerptChars}) AS excerpt, ` +
    `(SELECT count(*) FROM environments e WHERE e.document_id = d.id) AS environments ` +
    `FROM documents d ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY d.created_at DESC, d.id LIMIT ? OFFSET ?`;
  const rows = statement(db, sql).all(...params, filter.limit ?? 100, filter.offset ?? 0) as DocumentRow[];
  return rows.map((row) => ({
    id: row.id,
    corpus: row.corpus,
    title: row.title,
    words: row.words,
    createdAt: row.created_at,
    excerpt: row.excerpt ?? "",
    environments: row.environments,
  }));
}

/** The run note under which a run keeps what its corpus left out (one per run; a resume replaces it). */
const corpusSkippedNote = "corpus skipped";

/** What a run's corpus left out, as one message for the researcher (see `describeSkippedLines`). */
export interface CorpusProblem {
  runId: number;
  runName: string;
  message: string;
}

/** Keeps with the run the lines its corpus left out, so the report and the Corpus page show them. */
export function putCorpusSkipped(db: WritableDb, runId: number, message: string): void {
  putRunNote(db, runId, 0, corpusSkippedNote, message);
}

/** The corpus problems of one run, or of every run (newest run first). */
export function listCorpusProblems(db: ReadonlyDb, runId?: number): CorpusProblem[] {
  const rows = statement(
    db,
    `SELECT n.run_id, r.name, n.text FROM run_notes n JOIN runs r ON r.id = n.run_id WHERE n.kind = ? ${runId === undefined ? "" : "AND n.run_id = ?"} ORDER BY n.run_id DESC`,
  ).all(...(runId === undefined ? [corpusSkippedNote] : [corpusSkippedNote, runId])) as { run_id: number; name: string; text: string }[];
  return rows.map((row) => ({ runId: row.run_id, runName: row.name, message: row.text }));
}
