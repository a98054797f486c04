// The Environments list's memory column: which of pinned / banned / in memory hold for a row.
import type { EnvironmentListItem } from "../../../../shared/api/environmentTypes.js";

/** "pinned", "banned", "in memory", several joined by " · ", or "–" when none holds. */
export function memoryLabel(item: Pick<EnvironmentListItem, "pinned" | "banned" | "inMemory">): string {
  const parts = [item.pinned && "pinned", item.banned && "banned", item.inMemory && "in memory"].filter((part): part is string => Boolean(part));
  return parts.length ? parts.join(" · ") : "–";
}
