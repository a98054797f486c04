import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatMetricValue, type PreparedMetricChart } from "../lib/charts/prepareMetricChart.js";
import { seriesColor } from "../lib/charts/metricLabels.js";

export interface ChartSeries {
  key: string;
  label: string;
  /** Defaults to the palette colour of the series' position. */
  color?: string;
}

/** A thin line chart of a prepared metric (prepareMetricChart): one iteration shows its values; gaps stay gaps. */
export function MetricChart({ chart, series }: { chart: PreparedMetricChart; series: ChartSeries[] }) {
  const { title, rows, domain, ticks, flag, single, kind, axisWidth, empty } = chart;
  const labels = new Map(ticks.map((tick) => [tick.value, tick.label]));
  const tooltipValue = (value: unknown) => (typeof value !== "number" ? String(value) : flag ? (labels.get(value) ?? String(value)) : formatMetricValue(value, kind));
  return (
    <figure className="chart" data-testid={`chart-${title}`} data-points={rows.length} data-domain={domain ? domain.join("..") : "auto"} data-ticks={ticks.map((tick) => tick.label).join("|")}>
      <figcaption>
        {title}
        {single && rows[0] && <span className="muted"> · iteration {rows[0].iteration}</span>}
      </figcaption>
      {empty ? (
        <p className="chart-empty" data-testid="chart-empty">
          {empty}
        </p>
      ) : single ? (
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
          <LineChart data={rows} margin={{ top: 6, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#2c3440" />
            <XAxis dataKey="iteration" stroke="#8b96a5" fontSize={11} />
            <YAxis stroke="#8b96a5" fontSize={11} width={axisWidth} domain={domain ?? ["auto", "auto"]} ticks={ticks.map((tick) => tick.value)} interval={0} tickFormatter={(value: number) => labels.get(value) ?? ""} allowDecimals={!flag} />
            <Tooltip contentStyle={{ background: "#161b22", border: "1px solid #30363d" }} formatter={tooltipValue} />
            {series.length > 1 && <Legend />}
            {series.map((s, i) => (
              <Line key={s.key} type={flag ? "stepAfter" : "linear"} dataKey={s.key} name={s.label} stroke={s.color ?? seriesColor(i)} dot={{ r: 3 }} connectNulls={false} isAnimationActive={false} />
            ))}
          </LineChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}
