import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { getTurns, listEpisodes } from "../store/queries/episodes.js";
import type { PlayedEnvironment } from "../store/queries/trainingQueries.js";
import type { StoredPlayGroup } from "./StoredPlayGroup.js";

/** Every stored play of one environment, with its turns and their full prompts. */
export function loadPlayGroup(db: ReadonlyDb, environment: PlayedEnvironment): StoredPlayGroup {
  return {
    environment,
    plays: listEpisodes(db, environment.id).map((episode) => ({ episode, turns: getTurns(db, episode.id) })),
  };
}
