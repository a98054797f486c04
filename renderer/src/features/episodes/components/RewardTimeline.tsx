import { memo, useMemo, type MouseEvent } from "react";
import { useElementWidth } from "../../../hooks/useElementWidth.js";
import { layoutTimeline, stepAtX, xForStep, type TimelineLayout } from "../lib/layoutTimeline.js";
import type { TimelinePoint } from "../lib/prepareReplay.js";

const HEIGHT = 120;

/** The part that does not move with the slider: drawn once per episode and width. */
const TimelinePlot = memo(function TimelinePlot({ layout, color, dots }: { layout: TimelineLayout; color: string; dots: boolean }) {
  const { plot } = layout;
  return (
    <g>
      {layout.yTicks.map((tick) => (
        <g key={`y${tick.label}`}>
          <line x1={plot.left} x2={plot.left + plot.width} y1={tick.at} y2={tick.at} className="grid-line" />
          <text x={plot.left - 4} y={tick.at} className="tick" textAnchor="end" dominantBaseline="middle">
            {tick.label}
          </text>
        </g>
      ))}
      {layout.xTicks.map((tick) => (
        <text key={`x${tick.label}`} x={tick.at} y={plot.top + plot.height + 12} className="tick" textAnchor="middle">
          {tick.label}
        </text>
      ))}
      <path d={layout.path} className="timeline-line" stroke={color} fill="none" strokeWidth={1.5} strokeLinejoin="round" />
      {dots && layout.vertices.map((v) => <circle key={`${v.x},${v.y}`} cx={v.x} cy={v.y} r={2.5} fill={color} />)}
      {layout.ends.map((end) => (
        <circle key={`${end.x},${end.y}`} cx={end.x} cy={end.y} r={4} className="timeline-end" />
      ))}
    </g>
  );
});

/**
 * Reward per step drawn as one SVG path (downsampled to the pixel width, so a 10,000-turn episode
 * costs what a 500-turn one does); the current step is a vertical line, the episode's end a red
 * marker. Clicking jumps to the step under the pointer.
 */
export function RewardTimeline({ points, current, color, onSelect }: { points: TimelinePoint[]; current: number; color: string; onSelect?: (index: number) => void }) {
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const layout = useMemo(() => layoutTimeline(points, { width, height: HEIGHT }), [points, width]);
  const x = xForStep(layout, current + 1);
  function select(event: MouseEvent<SVGSVGElement>) {
    if (!onSelect || points.length === 0) return;
    const box = event.currentTarget.getBoundingClientRect();
    onSelect(stepAtX(layout, event.clientX - box.left) - 1);
  }
  return (
    <figure className="chart timeline" data-testid="reward-timeline" data-points={points.length}>
      <div ref={ref}>
        {width > 0 && (
          <svg width={width} height={HEIGHT} onClick={select} role="img" aria-label={`reward per step, ${points.length} steps`}>
            <TimelinePlot layout={layout} color={color} dots={points.length <= 60} />
            {points.length > 0 && <line x1={x} x2={x} y1={layout.plot.top} y2={layout.plot.top + layout.plot.height} className="timeline-current" data-testid="timeline-current" />}
          </svg>
        )}
      </div>
    </figure>
  );
}
