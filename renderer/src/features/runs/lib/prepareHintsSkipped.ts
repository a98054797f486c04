// The run page's note on skipped hinted plays: the games grouped by reason (a reason's numbers,
// like the prompt's token count, differ per game, so grouping is by the words before them).
import { plainText } from "../../../lib/format/splitInlineCode.js";

export interface SkippedHintGroup {
  /** The first game's full reason. */
  reason: string;
  environmentIds: number[];
}

const reasonKey = (reason: string) => plainText(reason).replace(/\d+/g, "#").trim();

export function prepareHintsSkipped(skipped: readonly { environmentId: number; reason: string }[] | undefined): SkippedHintGroup[] {
  const groups = new Map<string, SkippedHintGroup>();
  for (const { environmentId, reason } of [...(skipped ?? [])].sort((a, b) => a.environmentId - b.environmentId)) {
    const key = reasonKey(reason);
    const group = groups.get(key) ?? { reason, environmentIds: [] };
    group.environmentIds.push(environmentId);
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => b.environmentIds.length - a.environmentIds.length);
}
