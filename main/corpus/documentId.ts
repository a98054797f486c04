import { createHash } from "node:crypto";

/** `<file>:<n>:<first 8 hex digits of SHA-256(text)>` (see `CorpusDocument.id`). */
export function documentId(file: string, where: number, text: string): string {
  return `${file}:${where}:${createHash("sha256").update(text, "utf8").digest("hex").slice(0, 8)}`;
}
