import { readdir, stat } from "node:fs/promises";
import { basename, join, relative, sep } from "node:path";
import type { Corpus } from "./Corpus.js";
import { corpusCacheDir } from "./corpusCacheDir.js";
import { CorpusError } from "./CorpusError.js";
import type { FileCorpus } from "./FileCorpus.js";
import { FolderCorpus } from "./FolderCorpus.js";
import { JsonlCorpus } from "./JsonlCorpus.js";
import { ParquetCorpus } from "./ParquetCorpus.js";
import { gunzipToCache } from "./gunzipToCache.js";
import { addSkipped } from "./SkippedLines.js";
import { TextCorpus } from "./TextCorpus.js";

const readers: { pattern: RegExp; open: (path: string, name: string, cacheDir: string) => Promise<FileCorpus> }[] = [
  { pattern: /\.(jsonl|ndjson)$/i, open: (path, name, cacheDir) => JsonlCorpus.open(path, name, cacheDir) },
  { pattern: /\.parquet$/i, open: (path, name) => ParquetCorpus.open(path, name) },
  { pattern: /\.(txt|md|markdown)$/i, open: (path, name) => TextCorpus.open(path, name) },
];

const supported = ".jsonl/.ndjson (field orig_doc or text), .parquet (column text), .txt/.md (articles split on headings), any of these gzipped (.gz), or a folder of them";

export interface OpenCorpusOptions {
  /** Where indexes and decompressed copies go (a run passes its workspace's, `corpusCacheDir(db)`). Defaults to the user cache, `corpusCacheDir()`. */
  cacheDir?: string;
}

/**
 * Opens a grounding corpus, choosing the reader by file extension: JSONL, Parquet, a `.txt`/`.md`
 * file split into articles, or a folder (searched recursively, hidden entries skipped) of any of
 * these read as one corpus in path order. Fails with `CorpusError` naming the path when it is
 * missing, of an unknown kind, malformed, or holds no documents. Nothing is written beside the
 * corpus: indexes and decompressed copies go to `cacheDir`.
 */
export async function openCorpus(path: string, options: OpenCorpusOptions = {}): Promise<Corpus> {
  const cacheDir = options.cacheDir ?? corpusCacheDir();
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new CorpusError(`corpus ${path} cannot be opened: ${error.code === "ENOENT" ? "no such file or folder" : error.message}`);
  });
  if (info.isDirectory()) return openFolder(path, cacheDir);
  const corpus = await openFile(path, basename(path), cacheDir);
  if (corpus.count === 0) throw new CorpusError(`corpus ${path} holds no documents${unusable(corpus.skipped)}`);
  // A file of the wrong shape fails now, not at the first designer call.
  await corpus.get(0);
  return corpus;
}

async function openFile(path: string, name: string, cacheDir: string): Promise<FileCorpus> {
  const gzipped = /\.gz$/i.test(path);
  const inner = gzipped ? path.slice(0, -3) : path;
  const reader = readers.find((candidate) => candidate.pattern.test(inner));
  if (!reader) throw new CorpusError(`corpus ${path}: unknown file type; expected ${supported}`);
  // A gzipped corpus is read from a decompressed copy made once (random access needs plain bytes).
  return reader.open(gzipped ? await gunzipToCache(path, basename(inner), cacheDir) : path, name, cacheDir);
}

/** Why a file without documents has none, when indexing left lines out. */
function unusable(skipped: FileCorpus["skipped"]): string {
  if (skipped.count === 0) return "";
  return `: all ${skipped.count} non-blank lines are unusable (${skipped.examples.join("; ")})`;
}

async function openFolder(folder: string, cacheDir: string): Promise<Corpus> {
  const paths = (await listFiles(folder)).filter((path) => readers.some((reader) => reader.pattern.test(path.replace(/\.gz$/i, ""))));
  const opened: FileCorpus[] = [];
  for (const path of paths) opened.push(await openFile(path, relative(folder, path).split(sep).join("/"), cacheDir));
  const files = opened.filter((corpus) => corpus.count > 0);
  const skipped = addSkipped(opened.map((corpus) => corpus.skipped));
  if (files.length === 0) throw new CorpusError(`corpus folder ${folder} holds no documents${unusable(skipped)}; expected files of type ${supported}`);
  for (const file of files) await file.get(0);
  return new FolderCorpus(folder, files, skipped);
}

/** Every file under `folder`, hidden entries skipped, sorted by path so document order is stable. */
async function listFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(folder, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await listFiles(path)));
    else if (entry.isFile()) found.push(path);
  }
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
