import { useCallback, useEffect, useMemo, useState } from "react";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { useEpisodeReplay } from "../hooks/useEpisodeReplay.js";
import { prepareReplay, prepareTimeline, stepForKey } from "../lib/prepareReplay.js";
import { EpisodeColumn } from "./EpisodeColumn.js";
import { TurnList } from "./TurnList.js";

/** `#/episodes/<id>`: the replay, with its hinted/unhinted counterpart side by side. */
export function ReplayView({ episodeId }: { episodeId: number }) {
  const main = useEpisodeReplay(episodeId);
  const counterpartId = main.data?.episode.counterpartId ?? null;
  const other = useEpisodeReplay(counterpartId);
  const [current, setCurrent] = useState(0);
  const steps = useMemo(() => prepareReplay(main.data?.turns ?? [], main.data?.episode.firstObservation ?? null), [main.data]);
  const otherSteps = useMemo(() => prepareReplay(other.data?.turns ?? [], other.data?.episode.firstObservation ?? null), [other.data]);
  const timeline = useMemo(() => prepareTimeline(steps), [steps]);
  const otherTimeline = useMemo(() => prepareTimeline(otherSteps), [otherSteps]);
  const count = Math.max(steps.length, otherSteps.length);

  const select = useCallback((index: number) => setCurrent(Math.max(0, Math.min(count - 1, index))), [count]);

  useEffect(() => setCurrent(0), [episodeId]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === "INPUT" && (target as HTMLInputElement).type !== "range")) return;
      if (target && target.tagName === "TEXTAREA") return;
      const next = stepForKey(event.key, current, count);
      if (next !== null) {
        event.preventDefault();
        setCurrent(next);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [current, count]);

  if (main.error) return <ErrorBox error={main.error} onRetry={main.reload} />;
  if (!main.data) return <Loading what={`episode ${episodeId}`} />;
  const { episode } = main.data;
  const columns = [
    { episode, steps, timeline },
    ...(other.data ? [{ episode: other.data.episode, steps: otherSteps, timeline: otherTimeline }] : []),
  ].sort((a, b) => Number(a.episode.hinted) - Number(b.episode.hinted));

  return (
    <section className="view" data-testid="replay-view">
      <header className="view-head">
        <h2>
          Episode #{episode.id} <span className="muted">{episode.className ?? ""}</span>
        </h2>
        <a href={routes.env(episode.environmentId)}>environment #{episode.environmentId}</a>
      </header>
      <div className="stepper">
        <button type="button" onClick={() => setCurrent((c) => Math.max(0, c - 1))} disabled={current === 0} aria-label="previous step">
          ←
        </button>
        <input type="range" min={0} max={Math.max(0, count - 1)} value={current} onChange={(e) => setCurrent(Number(e.target.value))} aria-label="step" data-testid="step-slider" />
        <button type="button" onClick={() => setCurrent((c) => Math.min(count - 1, c + 1))} disabled={current >= count - 1} aria-label="next step">
          →
        </button>
        <span data-testid="step-label">
          step {count === 0 ? 0 : current + 1} / {count}
        </span>
      </div>
      {other.error && <ErrorBox error={other.error} />}
      <div className={columns.length > 1 ? "replay-columns two" : "replay-columns"}>
        {columns.map((column, i) => (
          <EpisodeColumn key={column.episode.id} episode={column.episode} steps={column.steps} timeline={column.timeline} current={current} color={i === 0 ? "#4e79a7" : "#f28e2b"} onSelect={select} />
        ))}
      </div>
      <h3>Turns of #{episode.id}</h3>
      <TurnList steps={steps} current={current} onSelect={select} />
    </section>
  );
}
