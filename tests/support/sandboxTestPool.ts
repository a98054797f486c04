import { tmpdir } from "node:os";
import { join } from "node:path";
import { SandboxPool, type SandboxPoolOptions } from "../../main/sandbox/SandboxPool.js";

/** A folder for the interpreter snapshot shared by test runs, so each test file starts in well under a second. */
export const TEST_SNAPSHOT_DIR = join(tmpdir(), "spade-workbench-test-snapshots");

/** A sandbox pool for tests: one process unless asked otherwise, the shared test snapshot cache. */
export function createTestPool(options: SandboxPoolOptions = {}): Promise<SandboxPool> {
  return SandboxPool.create({ size: 1, snapshotCacheDir: TEST_SNAPSHOT_DIR, ...options });
}
