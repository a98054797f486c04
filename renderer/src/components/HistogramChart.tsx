import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { HistogramBar } from "../lib/charts/prepareHistogram.js";

export function HistogramChart({ title, bars }: { title: string; bars: HistogramBar[] }) {
  return (
    <figure className="chart" data-testid={`chart-${title}`} data-points={bars.length}>
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={180}>
        <BarChart data={bars} margin={{ top: 6, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#2c3440" />
          <XAxis dataKey="bin" stroke="#8b96a5" fontSize={10} />
          <YAxis stroke="#8b96a5" fontSize={11} allowDecimals={false} />
          <Tooltip contentStyle={{ background: "#161b22", border: "1px solid #30363d" }} />
          <Bar dataKey="count" fill="#4e79a7" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
