import type { Episode, Turn } from "../store/queries/episodes.js";
import type { PlayedEnvironment } from "../store/queries/trainingQueries.js";

/** One stored play with its turns (each turn's full prompt rebuilt by the store). */
export interface StoredPlay {
  episode: Episode;
  turns: Turn[];
}

/** All stored plays of one environment: a GRPO group before selection. */
export interface StoredPlayGroup {
  environment: PlayedEnvironment;
  plays: StoredPlay[];
}
