import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { PreparedMetricChart } from "../lib/charts/prepareMetricChart.js";
import { seriesColor } from "../lib/charts/metricLabels.js";

export interface ChartSeries {
  key: string;
  label: string;
  /** Defaults to the palette colour of the series' position. */
  color?: string;
}

const percent = (value: number) => `${Math.round(value * 100)}%`;

/** A thin line chart of a prepared metric (prepareMetricChart): one iteration shows its values; gaps stay gaps. */
export function MetricChart({ chart, series }: { chart: PreparedMetricChart; series: ChartSeries[] }) {
  const { title, rows, domain, single } = chart;
  return (
    <figure className="chart" data-testid={`chart-${title}`} data-points={rows.length} data-domain={domain ? domain.join("-") : "auto"}>
      <figcaption>
        {title}
        {single && rows[0] && <span className="muted"> · iteration {rows[0].iteration}</span>}
      </figcaption>
      {single ? (
        <div className="single-values" data-testid="single-values">
          {single.map((value, i) => (
            <span key={value.key} className="single-value">
              {single.length > 1 && <span className="swatch" style={{ background: series[i]?.color ?? seriesColor(i) }} />} <strong>{value.text}</strong>
              {single.length > 1 && <span className="muted small"> {value.label}</span>}
            </span>
          ))}
        </div>
      ) : (
        <ResponsiveContainer width="100%" height={180}>
          <LineChart data={rows} margin={{ top: 6, right: 12, bottom: 0, left: -12 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#2c3440" />
            <XAxis dataKey="iteration" stroke="#8b96a5" fontSize={11} />
            <YAxis stroke="#8b96a5" fontSize={11} domain={domain ?? ["auto", "auto"]} tickFormatter={chart.rate ? percent : undefined} />
            <Tooltip contentStyle={{ background: "#161b22", border: "1px solid #30363d" }} />
            {series.length > 1 && <Legend />}
            {series.map((s, i) => (
              <Line key={s.key} dataKey={s.key} name={s.label} stroke={s.color ?? seriesColor(i)} dot={{ r: 3 }} connectNulls={false} isAnimationActive={false} />
            ))}
          </LineChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}
