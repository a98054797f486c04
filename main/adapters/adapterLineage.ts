import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getAdapter, type Adapter } from "../store/queries/adapters.js";
import { UnknownAdapterError } from "./UnknownAdapterError.js";

/** The adapter and its ancestors, newest first; the last one was trained on the base model. */
export function adapterLineage(db: ReadonlyDb, id: number): Adapter[] {
  const lineage: Adapter[] = [];
  const seen = new Set<number>();
  let current: number | null = id;
  while (current !== null && !seen.has(current)) {
    seen.add(current);
    const adapter = getAdapter(db, current);
    if (!adapter) {
      if (lineage.length === 0) throw new UnknownAdapterError(`adapter ${id} is not registered in this workspace`);
      break; // the parent was deleted: the lineage ends here
    }
    lineage.push(adapter);
    current = adapter.parentId;
  }
  return lineage;
}
