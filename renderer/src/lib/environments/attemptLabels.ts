// How the environment table shows designer attempts: grouped under their slot (a repair follows
// the attempt it repairs), with a short failure reason for invalid ones.
import type { EnvironmentListItem } from "../../../../shared/api/environmentTypes.js";

type Attempt = Pick<EnvironmentListItem, "runId" | "iteration" | "slot" | "attempt" | "source" | "valid" | "validationError">;

export interface AttemptLabel {
  /** "slot 2" for a slot's first row, "↳ repair 1" / "↳ attempt 2" for the attempts after it, "" outside runs. */
  slot: string;
  /** This row starts a new slot (the table draws a line above it). */
  groupStart: boolean;
}

const sameSlot = (a: Attempt, b: Attempt) => a.runId === b.runId && a.iteration === b.iteration && a.slot === b.slot;

/** The slot cell of `item`, given the row above it (null for the first row). */
export function attemptLabel(item: Attempt, above: Attempt | null): AttemptLabel {
  if (item.runId === null || item.slot === null) return { slot: item.source === "edit" ? "edit" : item.source === "import" ? "import" : "", groupStart: true };
  const attempt = item.attempt ?? 0;
  // A repair answers the previous attempt's error; other later attempts are fresh samples.
  const which = item.source === "repair" ? `repair ${attempt}` : `attempt ${attempt + 1}`;
  const continues = above !== null && sameSlot(item, above) && attempt > 0;
  if (continues) return { slot: `↳ ${which}`, groupStart: false };
  return { slot: attempt > 0 ? `slot ${item.slot} · ${which}` : `slot ${item.slot}`, groupStart: true };
}

/** Characters of the failure reason shown in the table (the full text is the cell's tooltip). */
const REASON_CHARS = 90;

/** The first line of an invalid attempt's validation error, shortened; "" for valid ones. */
export function failureReason(item: Pick<Attempt, "valid" | "validationError">): string {
  if (item.valid) return "";
  const line = (item.validationError ?? "no reason stored").split("\n").find((l) => l.trim() !== "")?.trim() ?? "no reason stored";
  return line.length > REASON_CHARS ? `${line.slice(0, REASON_CHARS - 1)}…` : line;
}
