import type { EpisodeSummary } from "../../../../../shared/api/episodeTypes.js";
import { formatNumber } from "../../../lib/format/formatNumber.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { prepareEpisodeRows } from "../lib/prepareEpisodeRows.js";

export function EpisodeList({ episodes }: { episodes: EpisodeSummary[] }) {
  if (episodes.length === 0) return <p className="muted">No episodes.</p>;
  return (
    <table className="table compact" data-testid="episode-list">
      <thead>
        <tr>
          <th>Episode</th>
          <th title="The rollout (iteration) the play belongs to: the game's regeneration rollout, or a replay rollout after it">Rollout</th>
          <th>Play</th>
          <th>Hint</th>
          <th>Turns</th>
          <th>Return</th>
          <th>Error</th>
        </tr>
      </thead>
      <tbody>
        {prepareEpisodeRows(episodes).map(({ episode, rollout }) => (
          <tr key={episode.id}>
            <td>
              <a href={routes.episode(episode.id)}>#{episode.id}</a>
            </td>
            <td>{rollout}</td>
            <td>{episode.canary ? `${episode.playIndex} (canary)` : episode.playIndex}</td>
            <td>{episode.hinted ? "hinted" : "–"}</td>
            <td>{episode.turns}</td>
            <td>{formatNumber(episode.return, 2)}</td>
            <td className="bad small">{episode.error ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
