// An environment's plays as its episode list shows them: by rollout (the game's regeneration
// rollout first, then the replay rollouts that replayed it), each saying which rollout it is.
import type { EpisodeSummary } from "../../../../../shared/api/episodeTypes.js";

export interface EpisodeRow {
  episode: EpisodeSummary;
  /** The rollout cell: "0", "2 (replay)", or "–" for a play outside a run. */
  rollout: string;
}

/** The plays in rollout order (the engine's order within a rollout kept), each with its rollout cell. */
export function prepareEpisodeRows(episodes: readonly EpisodeSummary[]): EpisodeRow[] {
  const order = (episode: EpisodeSummary) => episode.rollout ?? -1;
  return [...episodes]
    .sort((a, b) => order(a) - order(b))
    .map((episode) => ({ episode, rollout: rolloutText(episode) }));
}

function rolloutText(episode: EpisodeSummary): string {
  if (episode.rollout === null) return "–";
  return episode.gameIteration !== null && episode.rollout > episode.gameIteration ? `${episode.rollout} (replay)` : String(episode.rollout);
}
