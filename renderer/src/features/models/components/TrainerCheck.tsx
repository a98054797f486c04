import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { prepareTrainerFacts } from "../lib/prepareTrainerFacts.js";

/** The trainer's Python, as `spade trainer check` reports it. */
export function TrainerCheck() {
  const api = useApi();
  const check = useQuery("trainer-check", () => api.checkTrainer({}));
  if (check.error) return <ErrorBox error={check.error} onRetry={check.reload} />;
  if (!check.data) return <Loading what="the trainer check" />;
  const facts = prepareTrainerFacts(check.data);
  return (
    <div className="card" data-testid="trainer-check">
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
      <button type="button" onClick={check.reload}>
        Check again
      </button>
    </div>
  );
}
