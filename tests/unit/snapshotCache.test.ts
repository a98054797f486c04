import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SNAPSHOT_HEADER_BYTES, SnapshotCache } from "../../main/sandbox/snapshotCache.js";

const KEY = SnapshotCache.keyFor(["pyodide 1", "node 20"]);
const OTHER_KEY = SnapshotCache.keyFor(["pyodide 2", "node 20"]);
const snapshot = () => {
  const bytes = new Uint8Array(2 * 1024 * 1024);
  for (let index = 0; index < bytes.length; index += 997) bytes[index] = index % 251;
  return bytes;
};

describe("the interpreter snapshot cache", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "spade-snapshot-cache-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("verifies a snapshot it wrote and gives the header the child compares", () => {
    const cache = new SnapshotCache(dir, KEY);
    expect(cache.verifiedHeader()).toBeNull();
    cache.write(snapshot());
    const header = cache.verifiedHeader();
    expect(header?.length).toBe(SNAPSHOT_HEADER_BYTES);
    expect(readFileSync(cache.path).subarray(0, SNAPSHOT_HEADER_BYTES).equals(header as Buffer)).toBe(true);
    expect(readFileSync(cache.path).subarray(SNAPSHOT_HEADER_BYTES).equals(Buffer.from(snapshot()))).toBe(true);
  });

  it("rejects a snapshot with one byte changed", () => {
    const cache = new SnapshotCache(dir, KEY);
    cache.write(snapshot());
    const bytes = readFileSync(cache.path);
    bytes.writeUInt8(bytes.readUInt8(SNAPSHOT_HEADER_BYTES + 12345) ^ 0xff, SNAPSHOT_HEADER_BYTES + 12345);
    writeFileSync(cache.path, bytes);
    expect(cache.verifiedHeader()).toBeNull();
  });

  it("rejects a truncated file, a file without the header and a snapshot written for other inputs", () => {
    const cache = new SnapshotCache(dir, KEY);
    cache.write(snapshot());
    writeFileSync(cache.path, readFileSync(cache.path).subarray(0, SNAPSHOT_HEADER_BYTES + 4096));
    expect(cache.verifiedHeader()).toBeNull();
    // The format before headers: the raw snapshot only.
    writeFileSync(cache.path, snapshot());
    expect(cache.verifiedHeader()).toBeNull();
    // A good file of another key, put in this key's place.
    const foreign = new SnapshotCache(dir, OTHER_KEY);
    foreign.write(snapshot());
    renameSync(foreign.path, cache.path);
    expect(cache.verifiedHeader()).toBeNull();
  });

  it("refuses a key that is not 16 hexadecimal characters", () => {
    expect(() => new SnapshotCache(dir, "../../etc/passwd")).toThrow(/16 hexadecimal characters/);
  });
});
