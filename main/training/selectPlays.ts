import type { StoredPlay, StoredPlayGroup } from "./StoredPlayGroup.js";

export interface PlaySelectionOptions {
  /** Hinted plays join their environment's group. Defaults to false: the hint is privileged information. */
  includeHinted?: boolean;
  /** Plays that ended in an error (a model failure, a crash, a time-out) are kept. Defaults to false. */
  includeErrored?: boolean;
}

/** Why plays were left out of a group; canary plays never count (they only catch hanging games). */
export interface PlayExclusions {
  excludedCanary: number;
  excludedHinted: number;
  excludedErrored: number;
  /** No turns, or turn 0's prompt was not recorded: nothing to train on. */
  excludedUnrecorded: number;
}

export function emptyExclusions(): PlayExclusions {
  return { excludedCanary: 0, excludedHinted: 0, excludedErrored: 0, excludedUnrecorded: 0 };
}

/** The plays of a group that may be trained on, counting the others into `exclusions`. */
export function selectPlays(group: StoredPlayGroup, options: PlaySelectionOptions, exclusions: PlayExclusions): StoredPlay[] {
  const kept: StoredPlay[] = [];
  for (const play of group.plays) {
    const { episode } = play;
    if (episode.canary) exclusions.excludedCanary++;
    else if (episode.hinted && !options.includeHinted) exclusions.excludedHinted++;
    else if (episode.error !== null && !options.includeErrored) exclusions.excludedErrored++;
    else if (play.turns.length === 0 || !play.turns[0]?.messages) exclusions.excludedUnrecorded++;
    else kept.push(play);
  }
  return kept;
}
