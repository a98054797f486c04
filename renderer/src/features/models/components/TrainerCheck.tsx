import type { TrainerEnvironment } from "../../../../../shared/trainerEnvironment.js";
import { ErrorBox } from "../../../components/ErrorBox.js";
import type { QueryState } from "../../../hooks/useQuery.js";
import { prepareTrainerFacts } from "../lib/prepareTrainerFacts.js";

/** The trainer's Python, as `spade trainer check` reports it; says so while the check runs (it starts Python: seconds). */
export function TrainerCheck({ check }: { check: QueryState<TrainerEnvironment> }) {
  if (check.error) return <ErrorBox error={check.error} onRetry={check.reload} />;
  if (!check.data) {
    return (
      <div className="card" data-testid="trainer-check" data-state="checking">
        <h3>Trainer</h3>
        <p className="loading" role="status">
          Checking the trainer&apos;s Python, torch and device memory…
        </p>
      </div>
    );
  }
  const facts = prepareTrainerFacts(check.data);
  return (
    <div className="card" data-testid="trainer-check" data-state={check.loading ? "checking" : "done"}>
      <h3>Trainer</h3>
      <dl className="stats">
        {facts.rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {facts.ready ? (
        <p className="ok">Ready: runs with a training block can train here.</p>
      ) : (
        <ul className="bad" data-testid="trainer-problems">
          {facts.problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      <button type="button" onClick={check.reload} disabled={check.loading}>
        {check.loading ? "Checking…" : "Check again"}
      </button>
    </div>
  );
}
