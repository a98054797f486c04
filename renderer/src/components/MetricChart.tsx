import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { ChartRow } from "../lib/charts/prepareMetricSeries.js";
import { seriesColor } from "../lib/charts/metricLabels.js";

export interface ChartSeries {
  key: string;
  label: string;
  /** Defaults to the palette colour of the series' position. */
  color?: string;
}

/** A thin line chart: rows and series come prepared; gaps stay gaps. */
export function MetricChart({ title, rows, series }: { title: string; rows: ChartRow[]; series: ChartSeries[] }) {
  return (
    <figure className="chart" data-testid={`chart-${title}`} data-points={rows.length}>
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={180}>
        <LineChart data={rows} margin={{ top: 6, right: 12, bottom: 0, left: -12 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#2c3440" />
          <XAxis dataKey="iteration" stroke="#8b96a5" fontSize={11} />
          <YAxis stroke="#8b96a5" fontSize={11} />
          <Tooltip contentStyle={{ background: "#161b22", border: "1px solid #30363d" }} />
          {series.length > 1 && <Legend />}
          {series.map((s, i) => (
            <Line key={s.key} dataKey={s.key} name={s.label} stroke={s.color ?? seriesColor(i)} dot={{ r: 3 }} connectNulls={false} isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
