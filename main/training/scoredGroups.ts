import { groupAdvantages, type GroupAdvantages } from "./groupAdvantages.js";
import { emptyExclusions, selectPlays, type PlayExclusions, type PlaySelectionOptions } from "./selectPlays.js";
import type { StoredPlay, StoredPlayGroup } from "./StoredPlayGroup.js";

export interface ScoredGroup {
  group: StoredPlayGroup;
  plays: StoredPlay[];
  normalised: GroupAdvantages;
}

export interface ScoredGroups {
  scored: ScoredGroup[];
  /** Groups dropped for having no learning signal, and the plays left out of the others. */
  counts: PlayExclusions & { droppedZeroVariance: number; droppedTooSmall: number };
}

/**
 * The groups the group-based formats (GRPO, KTO, ART) train on: each environment's selectable
 * plays with their group-normalised advantages. Groups of fewer than two plays, or whose returns
 * are all equal, carry no signal and are dropped and counted.
 */
export function scoredGroups(groups: readonly StoredPlayGroup[], options: PlaySelectionOptions): ScoredGroups {
  const counts = { ...emptyExclusions(), droppedZeroVariance: 0, droppedTooSmall: 0 };
  const scored: ScoredGroup[] = [];
  for (const group of groups) {
    const plays = selectPlays(group, options, counts);
    const normalised = groupAdvantages(plays.map((play) => play.episode.return));
    if (plays.length < 2) counts.droppedTooSmall++;
    else if (!normalised || normalised.zeroVariance) counts.droppedZeroVariance++;
    else scored.push({ group, plays, normalised });
  }
  return { scored, counts };
}
