import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, type AsyncBuffer, type FileMetaData } from "hyparquet";
import type { CorpusDocument } from "./Corpus.js";
import { CorpusError } from "./CorpusError.js";
import { checkIndex } from "./checkIndex.js";
import { documentId } from "./documentId.js";
import { FileCorpus } from "./FileCorpus.js";

/**
 * A Parquet corpus: the text in a `text` (or `orig_doc`) column, the title in an optional `title`
 * column. Opening reads only the footer (schema and row counts); reading a document decodes just
 * those columns of the row group (or page, with an offset index) that holds it.
 */
export class ParquetCorpus extends FileCorpus {
  readonly format = "parquet" as const;

  private constructor(
    path: string,
    name: string,
    private readonly file: AsyncBuffer,
    private readonly metadata: FileMetaData,
    private readonly textColumn: string,
    private readonly titleColumn: string | null,
    readonly count: number,
  ) {
    super(path, name);
  }

  static async open(path: string, name: string): Promise<ParquetCorpus> {
    let file: AsyncBuffer;
    let metadata: FileMetaData;
    try {
      file = await asyncBufferFromFile(path);
      metadata = await parquetMetadataAsync(file);
    } catch (error) {
      throw new CorpusError(`${path}: not a readable Parquet file (${(error as Error).message})`, { cause: error });
    }
    const columns = topLevelColumns(metadata);
    const textColumn = columns.find((column) => column === "text") ?? columns.find((column) => column === "orig_doc");
    if (!textColumn) {
      throw new CorpusError(`${path}: expected a "text" (or "orig_doc") column; found columns ${columns.map((c) => `"${c}"`).join(", ") || "none"}`);
    }
    const titleColumn = columns.includes("title") ? "title" : null;
    return new ParquetCorpus(path, name, file, metadata, textColumn, titleColumn, Number(metadata.num_rows));
  }

  async get(index: number): Promise<CorpusDocument> {
    checkIndex(index, this.count, this.path);
    const rows = await parquetReadObjects({
      file: this.file,
      metadata: this.metadata,
      columns: this.titleColumn ? [this.textColumn, this.titleColumn] : [this.textColumn],
      rowStart: index,
      rowEnd: index + 1,
      useOffsetIndex: true,
    });
    const row = rows[0] ?? {};
    const text: unknown = row[this.textColumn];
    if (typeof text !== "string") {
      throw new CorpusError(`${this.path}: row ${index}: column "${this.textColumn}" is ${text === null || text === undefined ? "null" : typeof text}, expected a string`);
    }
    const title: unknown = this.titleColumn ? row[this.titleColumn] : null;
    return { id: documentId(this.name, index, text), index, title: typeof title === "string" ? title : null, text, file: this.path };
  }
}

/** Names of the schema's top-level fields (the root's direct children). */
function topLevelColumns(metadata: FileMetaData): string[] {
  const [root, ...elements] = metadata.schema;
  const names: string[] = [];
  let remaining = root?.num_children ?? 0;
  // The schema is a flattened tree in depth-first order: skip each child's own subtree.
  let i = 0;
  while (remaining > 0 && i < elements.length) {
    const element = elements[i]!;
    names.push(element.name);
    remaining--;
    i += 1 + subtreeSize(elements, i);
  }
  return names;
}

function subtreeSize(elements: FileMetaData["schema"], at: number): number {
  let size = 0;
  let pending = elements[at]?.num_children ?? 0;
  let i = at + 1;
  while (pending > 0 && i < elements.length) {
    const children = subtreeSize(elements, i);
    size += 1 + children;
    i += 1 + children;
    pending--;
  }
  return size;
}
