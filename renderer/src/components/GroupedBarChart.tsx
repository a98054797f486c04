import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { AxisTicks } from "../lib/charts/axisTicks.js";
import { seriesColor } from "../lib/charts/metricLabels.js";
import type { ChartSeries } from "./MetricChart.js";

/** Bars grouped by category (`xKey`), one bar per series with its own colour; rows and the value axis come prepared. */
export function GroupedBarChart({ title, rows, xKey, series, axis }: { title: string; rows: Record<string, string | number | null>[]; xKey: string; series: ChartSeries[]; axis: AxisTicks | null }) {
  const labels = new Map(axis?.ticks.map((tick) => [tick.value, tick.label]));
  return (
    <figure className="chart" data-testid={`chart-${title}`} data-points={rows.length} data-ticks={axis?.ticks.map((tick) => tick.label).join("|")}>
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={rows} margin={{ top: 6, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#2c3440" />
          <XAxis dataKey={xKey} stroke="#8b96a5" fontSize={11} />
          {axis ? <YAxis stroke="#8b96a5" fontSize={11} domain={axis.domain} ticks={axis.ticks.map((tick) => tick.value)} interval={0} tickFormatter={(value: number) => labels.get(value) ?? ""} /> : <YAxis stroke="#8b96a5" fontSize={11} />}
          <Tooltip contentStyle={{ background: "#161b22", border: "1px solid #30363d" }} cursor={{ fill: "#ffffff10" }} />
          <Legend />
          {series.map((s, i) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} fill={s.color ?? seriesColor(i)} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
