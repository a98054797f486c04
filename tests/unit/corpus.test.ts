import { parquetWriteFile } from "hyparquet-writer";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { CorpusError } from "../../main/corpus/CorpusError.js";
import { openCorpus } from "../../main/corpus/openCorpus.js";
import { scanLines } from "../../main/corpus/scanLines.js";
import { countWords, truncateWords } from "../../main/corpus/truncateWords.js";
import { createRng } from "../../main/util/seededRandom.js";

const wikitext = join(import.meta.dirname, "../../../shared/data/wikitext-2/valid.txt");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-corpus-"));
  // Opens without a cache folder use the user cache: keep it inside this test's folder.
  const cacheHome = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = join(dir, "user-cache");
  return () => {
    if (cacheHome === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = cacheHome;
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  return path;
}

describe("WikiText (.txt split on ` = Title = ` headings)", () => {
  it("reads the real WikiText-2 validation set as articles with titles and stable ids", async () => {
    const corpus = await openCorpus(wikitext);
    expect(corpus.format).toBe("text");
    expect(corpus.count).toBeGreaterThan(50);
    const first = await corpus.get(0);
    expect(first.title).toBe("Homarus gammarus");
    expect(first.text.startsWith("Homarus gammarus , known as the European lobster")).toBe(true);
    // Subsections stay inside their article; the heading line is not part of the text.
    expect(first.text).toContain(" = = Description = = ");
    expect(first.text).not.toContain(" = Homarus gammarus = ");
    expect(first.id).toMatch(/^valid\.txt:2:[0-9a-f]{8}$/); // the heading is on line 2
    const again = await openCorpus(wikitext);
    expect(again.count).toBe(corpus.count);
    for (const index of [0, 17, corpus.count - 1]) expect((await again.get(index)).id).toBe((await corpus.get(index)).id);
    const titles = await Promise.all([1, 2, 3].map(async (i) => (await corpus.get(i)).title));
    expect(titles.every((title) => typeof title === "string" && title.length > 0)).toBe(true);
  });

  it("draws the same documents from the same seed", async () => {
    const corpus = await openCorpus(wikitext);
    const draw = async (seed: number) => {
      const rng = createRng(seed);
      return Promise.all([0, 1, 2, 3].map(async () => (await corpus.sample(rng)).id));
    };
    expect(await draw(5)).toEqual(await draw(5));
    expect(await draw(5)).not.toEqual(await draw(6));
  });

  it("keeps text before the first heading as an untitled article and a headless file as one", async () => {
    const corpus = await openCorpus(file("pre.txt", "Preface words.\n\n = First = \n\n body one \n = = Sub = = \n more\n = Second = \nbody two"));
    expect(corpus.count).toBe(3);
    expect(await corpus.get(0)).toMatchObject({ title: null, text: "Preface words.", index: 0 });
    expect(await corpus.get(1)).toMatchObject({ title: "First", text: "body one \n = = Sub = = \n more" });
    expect(await corpus.get(2)).toMatchObject({ title: "Second", text: "body two" });
    const single = await openCorpus(file("notes.txt", "just some notes\nover two lines\n"));
    expect(single.count).toBe(1);
    expect(await single.get(0)).toMatchObject({ title: "notes", text: "just some notes\nover two lines" });
  });
});

describe("Markdown (.md split on `# Title`)", () => {
  it("splits on top-level headings only, ignoring # lines inside code fences", async () => {
    const md = "# Alpha\nIntro.\n## Details\nMore.\n```python\n# a comment, not a heading\n```\n# Beta #\nLast.\n";
    const corpus = await openCorpus(file("doc.md", md));
    expect(corpus.count).toBe(2);
    expect(await corpus.get(0)).toMatchObject({ title: "Alpha", text: "Intro.\n## Details\nMore.\n```python\n# a comment, not a heading\n```" });
    expect(await corpus.get(1)).toMatchObject({ title: "Beta", text: "Last." });
  });
});

describe("JSONL", () => {
  it("reads `text` or `orig_doc`, an optional title, and skips blank lines", async () => {
    const lines = [JSON.stringify({ text: "first doc", title: "One" }), "", "   ", JSON.stringify({ orig_doc: "second doc", meta: 1 }), JSON.stringify({ text: "third\nwith newline" })];
    const corpus = await openCorpus(file("docs.jsonl", `\uFEFF${lines.join("\r\n")}\r\n`));
    expect(corpus.format).toBe("jsonl");
    expect(corpus.count).toBe(3);
    expect(await corpus.get(0)).toMatchObject({ title: "One", text: "first doc", index: 0 });
    expect(await corpus.get(1)).toMatchObject({ title: null, text: "second doc" });
    expect(await corpus.get(2)).toMatchObject({ text: "third\nwith newline" });
    expect((await corpus.get(1)).id).toMatch(/^docs\.jsonl:4:[0-9a-f]{8}$/); // line 4, after two blank lines
  });

  it("counts the lines that are not documents at indexing, naming file and line, and leaves them out", async () => {
    const path = file("bad.jsonl", [JSON.stringify({ text: "ok" }), "", JSON.stringify({ body: "no text", id: 3 }), "{not json", JSON.stringify({ text: "also ok" })].join("\n"));
    const corpus = await openCorpus(path);
    expect(corpus.count).toBe(2);
    expect(await corpus.get(1)).toMatchObject({ text: "also ok" });
    expect(corpus.skipped.count).toBe(2);
    expect(corpus.skipped.examples[0]).toBe(`${path}:3: expected a string field "text" or "orig_doc"; found fields "body", "id"`);
    expect(corpus.skipped.examples[1]).toMatch(new RegExp(`^${escape(path)}:4: invalid JSON`));
    await expect(corpus.get(2)).rejects.toThrow(/document index 2 is out of range; it has 2 documents \(0\.\.1\)/);
  });

  it("prefers the reference's orig_doc over text", async () => {
    const corpus = await openCorpus(file("both.jsonl", `${JSON.stringify({ text: "short", orig_doc: "the original document" })}\n`));
    expect((await corpus.get(0)).text).toBe("the original document");
  });

  it("refuses a corpus in which no line is usable, with the first reasons", async () => {
    const path = file("wrongshape.jsonl", `${JSON.stringify(["a", "b"])}\n{oops\n`);
    await expect(openCorpus(path)).rejects.toThrow(CorpusError);
    await expect(openCorpus(path)).rejects.toThrow(
      `corpus ${path} holds no documents: all 2 non-blank lines are unusable (${path}:1: expected a JSON object with a "text" or "orig_doc" field, found an array; ${path}:2: invalid JSON`,
    );
  });

  it("caches its index in the cache folder it is given, never beside the corpus, keyed by path, size and modification time", async () => {
    const folder = join(dir, "own");
    const path = file("own/cached.jsonl", `${JSON.stringify({ text: "one" })}\n{bad\n${JSON.stringify({ text: "two" })}\n`);
    const cacheDir = join(dir, "workspace-cache");
    const first = await openCorpus(path, { cacheDir });
    expect(readdirSync(folder)).toEqual(["cached.jsonl"]);
    const entries = readdirSync(cacheDir);
    expect(entries).toEqual([expect.stringMatching(/^cached\.jsonl-[0-9a-f]{16}\.spade-index$/)]);
    const index = join(cacheDir, entries[0]!);
    // The cached index is what a second open uses: make it say something only a cache read could.
    const cached = readFileSync(index);
    const newline = cached.indexOf(10);
    const header = JSON.parse(cached.subarray(0, newline).toString("utf8"));
    header.skipped.examples = ["from the cache"];
    writeFileSync(index, Buffer.concat([Buffer.from(JSON.stringify(header).padEnd(newline, " ")), cached.subarray(newline)]));
    const second = await openCorpus(path, { cacheDir });
    expect(second.count).toBe(first.count);
    expect(second.skipped).toEqual({ count: 1, examples: ["from the cache"] });
    expect((await second.get(1)).text).toBe("two");
    // A changed file (another size and mtime) is indexed again.
    writeFileSync(path, `${JSON.stringify({ text: "only" })}\n`);
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    const third = await openCorpus(path, { cacheDir });
    expect(third.count).toBe(1);
    expect(third.skipped.count).toBe(0);
    expect((await third.get(0)).text).toBe("only");
    // The same file name in another folder has its own index.
    const other = file("elsewhere/cached.jsonl", `${JSON.stringify({ text: "a" })}\n${JSON.stringify({ text: "b" })}\n`);
    expect((await openCorpus(other, { cacheDir })).count).toBe(2);
    expect(readdirSync(cacheDir)).toHaveLength(2);
    expect(readdirSync(folder)).toEqual(["cached.jsonl"]);
  });

  it("says what a line's text field holds when it is not a string", async () => {
    const path = file("typed.jsonl", [JSON.stringify({ text: 42 }), JSON.stringify({ text: null, title: "t" }), JSON.stringify({ orig_doc: ["a"] }), JSON.stringify({ text: "fine" })].join("\n"));
    const corpus = await openCorpus(path);
    expect(corpus.count).toBe(1);
    expect(corpus.skipped.examples).toEqual([`${path}:1: field text must be a string, found a number`, `${path}:2: field text must be a string, found null`, `${path}:3: field orig_doc must be a string, found an array`]);
  });

  it("escapes NUL bytes and other control characters in what it says about a rejected line", async () => {
    const path = file("binary.jsonl", `${JSON.stringify({ text: "ok" })}\n\u0000\u0000{"te\u001b[31mxt\n${JSON.stringify({ ["na\u0007me"]: 1 })}\n`);
    const corpus = await openCorpus(path);
    expect(corpus.skipped.count).toBe(2);
    for (const example of corpus.skipped.examples) expect(example).not.toMatch(/\p{Cc}/u);
    expect(corpus.skipped.examples[0]).toMatch(new RegExp(`^${escape(path)}:2: invalid JSON \\(.*\\\\x00`));
    expect(corpus.skipped.examples[1]).toBe(`${path}:3: expected a string field "text" or "orig_doc"; found fields "na\\x07me"`);
  });

  it("names a document by the line it is on, after blank and rejected lines", async () => {
    const path = file("lines.jsonl", ["", JSON.stringify({ text: "first" }), "{bad", "", JSON.stringify({ text: "second" })].join("\n"));
    const corpus = await openCorpus(path);
    expect(corpus.count).toBe(2);
    expect((await corpus.get(0)).id).toMatch(/^lines\.jsonl:2:[0-9a-f]{8}$/);
    expect((await corpus.get(1)).id).toMatch(/^lines\.jsonl:5:[0-9a-f]{8}$/);
    const text = await openCorpus(file("articles.md", "intro\n\n# One\nbody\n\n# Two\nmore\n"));
    expect(await Promise.all([0, 1, 2].map(async (i) => (await text.get(i)).id.split(":")[1]))).toEqual(["1", "3", "6"]);
  });

  it("reads a gzipped JSONL corpus", async () => {
    const lines = [JSON.stringify({ text: "zipped one" }), JSON.stringify({ orig_doc: "zipped two", title: "T" })].join("\n");
    const path = join(dir, "docs.jsonl.gz");
    writeFileSync(path, gzipSync(lines));
    const cacheHome = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = join(dir, "cache");
    onTestFinished(() => {
      if (cacheHome === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = cacheHome;
    });
    const corpus = await openCorpus(path);
    expect(corpus.format).toBe("jsonl");
    expect(corpus.count).toBe(2);
    expect(await corpus.get(1)).toMatchObject({ text: "zipped two", title: "T" });
    expect((await corpus.get(0)).id).toMatch(/^docs\.jsonl\.gz:1:[0-9a-f]{8}$/);
    writeFileSync(join(dir, "broken.jsonl.gz"), "not gzip at all");
    await expect(openCorpus(join(dir, "broken.jsonl.gz"))).rejects.toThrow(/broken\.jsonl\.gz: cannot decompress it .*expected a gzip file/);
  });
});

describe("Parquet", () => {
  it("reads the text and title columns across row groups", async () => {
    const path = join(dir, "docs.parquet");
    const texts = Array.from({ length: 25 }, (_, i) => `document number ${i}`);
    parquetWriteFile({
      filename: path,
      columnData: [
        { name: "id", data: texts.map((_, i) => i), type: "INT32" },
        { name: "title", data: texts.map((_, i) => `Title ${i}`), type: "STRING" },
        { name: "text", data: texts, type: "STRING" },
      ],
      rowGroupSize: 10,
    });
    const corpus = await openCorpus(path);
    expect(corpus.format).toBe("parquet");
    expect(corpus.count).toBe(25);
    for (const index of [0, 9, 10, 24]) expect(await corpus.get(index)).toMatchObject({ index, title: `Title ${index}`, text: `document number ${index}` });
    expect((await corpus.get(24)).id).toMatch(/^docs\.parquet:24:[0-9a-f]{8}$/);
  });

  it("names the columns when there is no text column, and refuses a file that is not Parquet", async () => {
    const path = join(dir, "notext.parquet");
    parquetWriteFile({ filename: path, columnData: [{ name: "body", data: ["a"], type: "STRING" }, { name: "n", data: [1], type: "INT32" }] });
    await expect(openCorpus(path)).rejects.toThrow(`${path}: expected a "text" (or "orig_doc") column; found columns "body", "n"`);
    const fake = file("fake.parquet", "not parquet at all");
    await expect(openCorpus(fake)).rejects.toThrow(new RegExp(`fake\\.parquet: not a readable Parquet file`));
  });
});

describe("folders and bad paths", () => {
  it("reads a folder of mixed files as one corpus in path order, ids naming the relative path", async () => {
    const folder = join(dir, "mixed");
    file("mixed/b.jsonl", `${JSON.stringify({ text: "json one" })}\n${JSON.stringify({ text: "json two" })}\n`);
    file("mixed/a/wiki.txt", " = A = \n alpha \n = B = \n beta \n");
    file("mixed/.hidden.txt", "secret");
    file("mixed/readme.pdf", "ignored");
    file("mixed/empty.md", "\n\n");
    const corpus = await openCorpus(folder);
    expect(corpus.format).toBe("folder");
    expect(corpus.count).toBe(4);
    const docs = await Promise.all([0, 1, 2, 3].map((i) => corpus.get(i)));
    expect(docs.map((d) => [d.index, d.title, d.text])).toEqual([
      [0, "A", "alpha"],
      [1, "B", "beta"],
      [2, null, "json one"],
      [3, null, "json two"],
    ]);
    expect(docs[1]!.id).toMatch(/^a\/wiki\.txt:3:[0-9a-f]{8}$/);
    expect(docs[3]!.id).toMatch(/^b\.jsonl:2:/);
  });

  it("refuses missing paths, unknown types and empty corpora with the path in the message", async () => {
    const missing = join(dir, "nope.jsonl");
    await expect(openCorpus(missing)).rejects.toThrow(`corpus ${missing} cannot be opened: no such file or folder`);
    const csv = file("data.csv", "text\nhello\n");
    await expect(openCorpus(csv)).rejects.toThrow(`corpus ${csv}: unknown file type; expected .jsonl/.ndjson`);
    const empty = file("empty.jsonl", "\n\n");
    await expect(openCorpus(empty)).rejects.toThrow(`corpus ${empty} holds no documents`);
    mkdirSync(join(dir, "emptyfolder"));
    await expect(openCorpus(join(dir, "emptyfolder"))).rejects.toThrow(/corpus folder .*emptyfolder holds no documents/);
  });
});

describe("scanLines", () => {
  it("finds every line and its head across chunk boundaries", async () => {
    const lines = ["short", "", "a much longer line than the chunk", "x", "", "trailing without newline"];
    const content = lines.join("\n");
    const path = file("lines.txt", content);
    for (const chunkBytes of [1, 3, 7, 64]) {
      const seen: [string, string][] = [];
      const size = await scanLines(path, (start, end, head) => seen.push([content.slice(start, end), head.toString()]), { chunkBytes, headBytes: 5 });
      expect(size).toBe(content.length);
      expect(seen.map(([line]) => line)).toEqual(lines);
      expect(seen.map(([, head]) => head)).toEqual(lines.map((line) => line.slice(0, 5)));
    }
  });
});

describe("truncateWords", () => {
  it("keeps the first maxWords words with their original spacing", () => {
    expect(truncateWords("one  two\nthree four", 3)).toBe("one  two\nthree");
    expect(truncateWords("one two", 5)).toBe("one two");
    expect(countWords(truncateWords("w ".repeat(7000)))).toBe(6000);
    expect(countWords("  a b\n\nc ")).toBe(3);
    expect(() => truncateWords("x", 0)).toThrow(/maxWords must be a positive integer, got 0/);
  });
});
