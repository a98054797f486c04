import { createHash } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The file's first bytes: magic, the cache key, the SHA-256 of the snapshot after the header, padding. */
export const SNAPSHOT_HEADER_BYTES = 64;
const MAGIC = "SPADESN1";
const KEY_CHARS = 16;
const MIN_SNAPSHOT_BYTES = 1024 * 1024;

/**
 * The Pyodide memory snapshot taken right after the harness was imported, kept on disk so that a
 * new process (a CLI run, a replaced sandbox) loads the interpreter instead of booting it. The
 * name carries a hash of everything the snapshot depends on, so a changed harness or Pyodide never
 * loads a stale one. The parent writes it; sandbox children never get write access to it.
 *
 * The file starts with a header naming its key and the SHA-256 of the snapshot. The engine reads
 * the whole file and checks both before it hands the path to any child (`verifiedHeader`): a
 * corrupt, truncated or foreign file is not used (the pool starts cold and writes a good one).
 * Each child then checks that the file still starts with exactly the header the engine verified.
 */
export class SnapshotCache {
  readonly path: string;

  constructor(
    directory: string,
    readonly key: string,
  ) {
    if (!/^[0-9a-f]{16}$/.test(key)) throw new RangeError(`a snapshot cache key is 16 hexadecimal characters, got ${JSON.stringify(key)}`);
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
    return hash.digest("hex").slice(0, KEY_CHARS);
  }

  /** The header of a snapshot file for `key` holding `snapshot`. */
  static header(key: string, snapshot: Uint8Array): Buffer {
    const header = Buffer.alloc(SNAPSHOT_HEADER_BYTES);
    header.write(MAGIC, 0, "latin1");
    header.write(key, MAGIC.length, "latin1");
    createHash("sha256").update(snapshot).digest().copy(header, MAGIC.length + KEY_CHARS);
    return header;
  }

  /**
   * The file's header when the whole file is a snapshot of this key whose hash matches, else null
   * (missing, unreadable, truncated, corrupt, or written for other inputs).
   */
  verifiedHeader(): Buffer | null {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.path);
    } catch {
      return null;
    }
    if (bytes.length < SNAPSHOT_HEADER_BYTES + MIN_SNAPSHOT_BYTES) return null;
    const header = bytes.subarray(0, SNAPSHOT_HEADER_BYTES);
    const expected = SnapshotCache.header(this.key, bytes.subarray(SNAPSHOT_HEADER_BYTES));
    return header.equals(expected) ? Buffer.from(header) : null;
  }

  /**
   * Writes header and snapshot atomically, unless a valid snapshot of this key is there already:
   * the first writer wins. Two cold boots never make the same snapshot (the interpreter's start
   * draws from the host's entropy), and a process loaded from one gives other `id()`s than a
   * process loaded from the other, so a valid file is never replaced under the processes and
   * pools that verified it (another pool's children would boot cold). A corrupt or foreign file
   * is replaced. A failure only costs the next start its speed, so it is swallowed.
   */
  write(snapshot: Uint8Array): void {
    const temporary = `${this.path}.${process.pid}.tmp`;
    try {
      mkdirSync(join(this.path, ".."), { recursive: true });
      writeFileSync(temporary, Buffer.concat([SnapshotCache.header(this.key, snapshot), snapshot]));
      try {
        linkSync(temporary, this.path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || this.verifiedHeader() !== null) return;
        renameSync(temporary, this.path);
      }
    } catch {
      // A read-only home or a full disk: the sandbox still works, it just starts cold.
    } finally {
      rmSync(temporary, { force: true });
    }
  }
}
