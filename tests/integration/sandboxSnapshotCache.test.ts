import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { SNAPSHOT_HEADER_BYTES } from "../../main/sandbox/snapshotCache.js";

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
    const pool = await SandboxPool.create({ size: 1, prewarm: 1, snapshotCacheDir: dir });
    try {
      expect(phasesOf(pool)).toContain("interpreterBoot");
      expect(phasesOf(pool)).not.toContain("snapshotRestore");
      expect(readFileSync(path).equals(corrupt)).toBe(false);
      // The next process loads the rewritten snapshot (which the engine verified first).
      let session = await pool.open(GAME, { freshProcess: true });
      await session.close();
      await pool.prewarm(1);
      expect(phasesOf(pool)).toContain("snapshotRestore");
      // The file changes after the engine's check: the child compares the header and boots cold.
      const changed = readFileSync(path);
      changed.writeUInt8(changed.readUInt8(20) ^ 0x01, 20);
      writeFileSync(path, changed);
      const before = pool.startProfile().starts;
      session = await pool.open(GAME, { freshProcess: true });
      await session.close();
      await pool.prewarm(1);
      expect(pool.startProfile().starts).toBeGreaterThan(before);
      session = await pool.open(GAME, { freshProcess: true });
      expect((await session.reset(7)).observation).toBe("tiny 7");
      await session.close();
      const cold = pool.startProfile().phases.find((phase) => phase.name === "interpreterBoot");
      expect(cold).toBeDefined();
    } finally {
      await pool.dispose();
    }
  });
});
