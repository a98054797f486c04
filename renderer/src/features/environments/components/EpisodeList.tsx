import type { EpisodeSummary } from "../../../../../shared/api/episodeTypes.js";
import { formatNumber } from "../../../lib/format/formatNumber.js";
import { routes } from "../../../lib/router/parseRoute.js";

export function EpisodeList({ episodes }: { episodes: EpisodeSummary[] }) {
  if (episodes.length === 0) return <p className="muted">No episodes.</p>;
  return (
    <table className="table compact" data-testid="episode-list">
      <thead>
        <tr>
          <th>Episode</th>
          <th>Play</th>
          <th>Hint</th>
          <th>Turns</th>
          <th>Return</th>
          <th>Error</th>
        </tr>
      </thead>
      <tbody>
        {episodes.map((episode) => (
          <tr key={episode.id}>
            <td>
              <a href={routes.episode(episode.id)}>#{episode.id}</a>
            </td>
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
