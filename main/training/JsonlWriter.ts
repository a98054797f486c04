import { createHash, type Hash } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";

/** What was written: the manifest's record of one file. */
export interface WrittenFile {
  path: string;
  lines: number;
  bytes: number;
  sha256: string;
}

/** Writes one JSON object per line, hashing as it goes (so a big export is never held in memory). */
export class JsonlWriter {
  private readonly fd: number;
  private readonly hash: Hash = createHash("sha256");
  private lines = 0;
  private bytes = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, "w");
  }

  write(value: unknown): void {
    const buffer = Buffer.from(JSON.stringify(value) + "\n", "utf8");
    writeSync(this.fd, buffer);
    this.hash.update(buffer);
    this.lines++;
    this.bytes += buffer.length;
  }

  close(): WrittenFile {
    closeSync(this.fd);
    return { path: this.path, lines: this.lines, bytes: this.bytes, sha256: this.hash.digest("hex") };
  }
}
