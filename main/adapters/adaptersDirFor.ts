import { dirname, join } from "node:path";

/** The workspace's adapter folder: `adapters/` next to its database file. */
export function adaptersDirFor(dbPath: string): string {
  return join(dirname(dbPath), "adapters");
}
