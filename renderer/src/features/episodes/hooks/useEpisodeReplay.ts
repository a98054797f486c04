import type { EpisodeDetail, TurnView } from "../../../../../shared/api/episodeTypes.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";

const PAGE = 1000;

/** An episode and all its turns (paged in 1,000s). */
export function useEpisodeReplay(episodeId: number | null) {
  const api = useApi();
  return useQuery<{ episode: EpisodeDetail; turns: TurnView[] } | null>(`episode:${episodeId}`, async () => {
    if (episodeId === null) return null;
    const [episode, first] = await Promise.all([api.getEpisode({ episodeId }), api.getTurns({ episodeId, offset: 0, limit: PAGE })]);
    const turns = [...first.turns];
    while (turns.length < first.total) {
      const page = await api.getTurns({ episodeId, offset: turns.length, limit: PAGE });
      if (page.turns.length === 0) break;
      turns.push(...page.turns);
    }
    return { episode, turns };
  });
}
