import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The Pyodide memory snapshot taken right after the harness was imported, kept on disk so that a
 * new process (a CLI run, a replaced sandbox) starts in about half a second instead of paying
 * the interpreter's full start-up. The name carries a hash of everything the snapshot depends
 * on, so a changed harness or Pyodide never loads a stale one. The parent writes it; sandbox
 * children never get write access to it.
 */
export class SnapshotCache {
  readonly path: string;

  constructor(directory: string, key: string) {
    this.path = join(directory, `pyodide-snapshot-${key}.bin`);
  }

  /** The default folder: `$XDG_CACHE_HOME/spade-workbench`, else `~/.cache/spade-workbench`. */
  static defaultDirectory(): string {
    return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "spade-workbench");
  }

  /** A hash of the inputs a snapshot depends on. */
  static keyFor(parts: string[]): string {
    const hash = createHash("sha256");
    for (const part of parts) hash.update(part).update("\0");
    return hash.digest("hex").slice(0, 16);
  }

  /** True when a snapshot of plausible size is on disk. */
  exists(): boolean {
    try {
      return statSync(this.path).size > 1024 * 1024;
    } catch {
      return false;
    }
  }

  read(): Uint8Array | null {
    try {
      const bytes = readFileSync(this.path);
      return bytes.length > 1024 * 1024 ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null;
    } catch {
      return null;
    }
  }

  /** Writes atomically; a failure only costs the next start its speed, so it is swallowed. */
  write(snapshot: Uint8Array): void {
    try {
      mkdirSync(join(this.path, ".."), { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temporary, snapshot);
      renameSync(temporary, this.path);
    } catch {
      // A read-only home or a full disk: the sandbox still works, it just starts cold.
    }
  }
}
