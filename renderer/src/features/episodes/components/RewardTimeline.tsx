import { CartesianGrid, ComposedChart, Line, ReferenceDot, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TimelinePoint } from "../lib/prepareReplay.js";


/** Reward per step; the current step as a vertical line, the episode's end as a marker. */
export function RewardTimeline({ points, current, color }: { points: TimelinePoint[]; current: number; color: string }) {
  return (
    <figure className="chart timeline" data-testid="reward-timeline" data-points={points.length}>
      <ResponsiveContainer width="100%" height={120}>
        <ComposedChart data={points} margin={{ top: 6, right: 12, bottom: 0, left: -18 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#2c3440" />
          <XAxis dataKey="step" stroke="#8b96a5" fontSize={11} />
          <YAxis stroke="#8b96a5" fontSize={11} />
          <Tooltip contentStyle={{ background: "#161b22", border: "1px solid #30363d" }} />
          <Line dataKey="reward" stroke={color} dot={points.length <= 60} isAnimationActive={false} connectNulls={false} />
          {points
            .filter((point) => point.end !== null)
            .map((point) => (
              <ReferenceDot key={point.step} x={point.step} y={point.end ?? 0} r={4} fill="#e15759" stroke="#e15759" />
            ))}
          <ReferenceLine x={current + 1} stroke="#edc948" />
        </ComposedChart>
      </ResponsiveContainer>
    </figure>
  );
}
