import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { playEnvironment } from "../../main/sandbox/playEnvironment.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import type { EnvSession } from "../../main/sandbox/EnvSession.js";
import type { SandboxProcess } from "../../main/sandbox/SandboxProcess.js";
import { SNAPSHOT_HEADER_BYTES, SnapshotCache } from "../../main/sandbox/snapshotCache.js";

// The interpreter snapshot on disk is written by the engine and checked before it is loaded: a
// corrupt or foreign file is never trusted, by the engine (whole-file hash) or by a child (the
// header the engine verified).

const GAME = `
class TinyEnv:
    def reset(self, seed=None):
        return f"tiny {seed}", {}
    def step(self, action):
        return action, 1.0, True, False, {}
`;

/** The sandbox process a session runs in. */
const processOf = (session: EnvSession) => (session as unknown as { process: SandboxProcess }).process;
const phasesOf = (pool: SandboxPool) => pool.startProfile().phases.map((phase) => phase.name);
const cacheFile = (dir: string) => join(dir, readdirSync(dir).find((name) => name.endsWith(".bin")) as string);

describe("the snapshot cache as the sandbox uses it", () => {
  const dir = mkdtempSync(join(tmpdir(), "spade-snapshot-trust-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("starts cold over a corrupt cache, writes a good one, and a child refuses a file changed after the check", async () => {
    // A first pool writes the cache.
    const first = await SandboxPool.create({ size: 1, snapshotCacheDir: dir });
    await first.dispose();
    const path = cacheFile(dir);
    const good = readFileSync(path);
    // One flipped byte in the snapshot: the engine does not hand the file to children; the pool boots cold and rewrites it.
    const corrupt = Buffer.from(good);
    corrupt.writeUInt8(corrupt.readUInt8(SNAPSHOT_HEADER_BYTES + 4096) ^ 0x01, SNAPSHOT_HEADER_BYTES + 4096);
    writeFileSync(path, corrupt);
    // Recycling off: each never-used process asked for here is a new start, which reads the file.
    const pool = await SandboxPool.create({ size: 1, prewarm: 1, snapshotCacheDir: dir, recycleProcesses: false });
    try {
      expect(phasesOf(pool)).toContain("interpreterBoot");
      expect(readFileSync(path).equals(corrupt)).toBe(false);
      // The cold process is replaced by one that loaded the rewritten snapshot (which the engine verified first).
      expect(phasesOf(pool)).toContain("snapshotCopy");
      let session = await pool.open(GAME, { freshProcess: true });
      await session.close();
      await pool.prewarm(1);
      // The file changes after the engine's check: the child compares the header and boots cold.
      const changed = readFileSync(path);
      changed.writeUInt8(changed.readUInt8(20) ^ 0x01, 20);
      writeFileSync(path, changed);
      const before = pool.startProfile().starts;
      // The first never-used process may have been started before the change; the next one is not.
      session = await pool.open(GAME, { freshProcess: true });
      await session.close();
      session = await pool.open(GAME, { freshProcess: true });
      expect(pool.startProfile().starts).toBeGreaterThan(before);
      // That child booted cold, and was ended, not handed out: the pool read the file again, made a
      // good one and handed out a process loaded from it (a cold one gives other id()s).
      expect(processOf(session).loadedFromSnapshot).toBe(true);
      expect((await session.reset(7)).observation).toBe("tiny 7");
      await session.close();
      const cold = pool.startProfile().phases.find((phase) => phase.name === "interpreterBoot");
      expect(cold).toBeDefined();
    } finally {
      await pool.dispose();
    }
  }, 300_000);

  it("keeps the first valid snapshot of a key: a second writer never replaces it, a corrupt file it does", () => {
    // Two cold boots never make the same snapshot; processes loaded from either give other id()s,
    // so a pool's snapshot must not be replaced under it by another pool's (tests, other runs).
    const cache = new SnapshotCache(mkdtempSync(join(tmpdir(), "spade-snapshot-first-")), "0123456789abcdef");
    const first = new Uint8Array(2 * 1024 * 1024).fill(1);
    const second = new Uint8Array(2 * 1024 * 1024).fill(2);
    cache.write(first);
    expect(cache.verifiedHeader()).toEqual(SnapshotCache.header(cache.key, first));
    cache.write(second);
    expect(cache.verifiedHeader()).toEqual(SnapshotCache.header(cache.key, first));
    const corrupt = readFileSync(cache.path);
    corrupt.writeUInt8(corrupt.readUInt8(SNAPSHOT_HEADER_BYTES + 10) ^ 0x01, SNAPSHOT_HEADER_BYTES + 10);
    writeFileSync(cache.path, corrupt);
    cache.write(second);
    expect(cache.verifiedHeader()).toEqual(SnapshotCache.header(cache.key, second));
    expect(readdirSync(join(cache.path, "..")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    rmSync(join(cache.path, ".."), { recursive: true, force: true });
  });

  it("hands out no cold-booted process once the snapshot is cached: every play sees the same process state", async () => {
    const processState = readFileSync(join("tests", "fixtures", "environments", "state", "process_state_game.py"), "utf8");
    // No cache yet: the first process boots cold (the in-memory file system's inode counter then differs from a snapshot load).
    const pool = await SandboxPool.create({ size: 1, snapshotCacheDir: null });
    try {
      expect(phasesOf(pool)).toContain("interpreterBoot");
      const plays: string[] = [];
      for (let play = 0; play < 3; play++) {
        const report = await playEnvironment(pool, processState, { seed: 3, actions: ["\\boxed{1}"] });
        expect(report.error).toBeNull();
        plays.push(report.reset.observation);
      }
      expect(new Set(plays).size).toBe(1);
    } finally {
      await pool.dispose();
    }
  }, 300_000);
});
