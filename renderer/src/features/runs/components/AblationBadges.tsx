/** The run's ablations by name ("no memory", "reward: regret", ...); nothing for the full SPADE recipe. */
export function AblationBadges({ ablations }: { ablations: string[] }) {
  if (ablations.length === 0) return null;
  return (
    <span className="ablations" data-testid="ablations">
      {ablations.map((ablation) => (
        <span key={ablation} className="badge badge-ablation" title="ablation">
          {ablation}
        </span>
      ))}
    </span>
  );
}
