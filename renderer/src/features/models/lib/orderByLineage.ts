// Adapters as a lineage tree: each one under the adapter it was trained from. Pure: tested alone.
import type { AdapterView } from "../../../../../shared/api/modelTypes.js";

export interface LineageRow {
  adapter: AdapterView;
  /** 0 for an adapter trained on the base model (or whose parent is gone). */
  depth: number;
}

/** Depth-first: a parent, then its children oldest first; roots oldest first. */
export function orderByLineage(adapters: readonly AdapterView[]): LineageRow[] {
  const ids = new Set(adapters.map((adapter) => adapter.id));
  const children = new Map<number | null, AdapterView[]>();
  for (const adapter of [...adapters].sort((a, b) => a.id - b.id)) {
    const parent = adapter.parentId !== null && ids.has(adapter.parentId) ? adapter.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), adapter]);
  }
  const rows: LineageRow[] = [];
  const seen = new Set<number>();
  const visit = (parent: number | null, depth: number) => {
    for (const adapter of children.get(parent) ?? []) {
      if (seen.has(adapter.id)) continue;
      seen.add(adapter.id);
      rows.push({ adapter, depth });
      visit(adapter.id, depth + 1);
    }
  };
  visit(null, 0);
  // A cycle (corrupt data) never reaches a root: list what is left flat rather than lose it.
  for (const adapter of adapters) if (!seen.has(adapter.id)) rows.push({ adapter, depth: 0 });
  return rows;
}
