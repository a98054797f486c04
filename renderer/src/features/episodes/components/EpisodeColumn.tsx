import type { EpisodeDetail } from "../../../../../shared/api/episodeTypes.js";
import { countOf } from "../../../lib/format/countOf.js";
import { formatNumber } from "../../../lib/format/formatNumber.js";
import { routes } from "../../../lib/router/parseRoute.js";
import type { ReplayStep, TimelinePoint } from "../lib/prepareReplay.js";
import { RewardTimeline } from "./RewardTimeline.js";
import { StepCard } from "./StepCard.js";
import { TextWithCode } from "../../../components/TextWithCode.js";

export function EpisodeColumn({ episode, steps, timeline, current, color, onSelect }: { episode: EpisodeDetail; steps: ReplayStep[]; timeline: TimelinePoint[]; current: number; color: string; onSelect: (index: number) => void }) {
  return (
    <div className="episode-column" data-testid={episode.hinted ? "column-hinted" : "column-unhinted"}>
      <h3>
        <a href={routes.episode(episode.id)}>#{episode.id}</a> {episode.hinted ? "with hint" : "without hint"}
        <span className="muted small">
          {" "}
          · play {episode.playIndex}{episode.canary ? " (canary)" : ""} · {countOf(episode.turns, "turn")} · return {formatNumber(episode.return)}
          {episode.adapter ? ` · ${episode.adapter}` : ""}
        </span>
      </h3>
      {episode.error && (
        <div className="error-box">
          <TextWithCode text={episode.error} />
        </div>
      )}
      <RewardTimeline points={timeline} current={current} color={color} onSelect={onSelect} />
      <StepCard step={steps[current]} />
    </div>
  );
}
