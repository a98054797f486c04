import type { EnvironmentStats } from "../../../../../shared/api/environmentTypes.js";
import { formatNumber, formatPercent } from "../../../lib/format/formatNumber.js";

export function StatsPanel({ stats }: { stats: EnvironmentStats | null }) {
  if (!stats) return <p className="muted">Not played.</p>;
  const rows: [string, string][] = [
    ["Plays (no hint / hint)", `${stats.plays} / ${stats.hintPlays}`],
    ["Win rate", formatPercent(stats.winRate)],
    ["Hinted win rate", formatPercent(stats.hintWinRate)],
    ["Mean return", formatNumber(stats.meanReturn, 3)],
    ["Hinted mean return", formatNumber(stats.hintMeanReturn, 3)],
    ["Regret", formatNumber(stats.regret, 3)],
    [`Designer reward${stats.rewardKind ? ` (${stats.rewardKind})` : ""}`, formatNumber(stats.designerReward, 3)],
    ["Step time-outs", String(stats.stepTimeouts)],
  ];
  return (
    <dl className="stats" data-testid="stats-panel">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
