import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { formatNumber, formatPercent } from "../../../lib/format/formatNumber.js";
import { routes } from "../../../lib/router/parseRoute.js";

/** One adapter: where it came from (lineage, base model, data manifest, trainer) and how it scored. */
export function AdapterDetailPanel({ adapterId }: { adapterId: number }) {
  const api = useApi();
  const detail = useQuery(`adapter:${adapterId}`, () => api.getAdapter({ adapterId }));
  if (detail.error) return <ErrorBox error={detail.error} onRetry={detail.reload} />;
  if (!detail.data) return <Loading what={`adapter ${adapterId}`} />;
  const a = detail.data;
  const chain = [...a.lineage].reverse();
  return (
    <article className="card" data-testid="adapter-detail">
      <h3>
        #{a.id} {a.name} <span className="badge">{a.status ?? "?"}</span>
      </h3>
      <p data-testid="adapter-lineage">
        <span className="muted">lineage: </span>base model
        {chain.map((ancestor) => (
          <span key={ancestor.id}>
            {" → "}
            <a href={routes.models(ancestor.id)}>{ancestor.name}</a>
          </span>
        ))}
        {" → "}
        <strong>{a.name}</strong>
        {a.childIds.length > 0 && (
          <span className="muted">
            {" "}
            (trained further into{" "}
            {a.childIds.map((id) => (
              <a key={id} href={routes.models(id)}>
                #{id}{" "}
              </a>
            ))}
            )
          </span>
        )}
      </p>
      <dl className="stats">
        <div>
          <dt>File</dt>
          <dd className="mono small">{a.path ?? "–"}</dd>
        </div>
        <div>
          <dt>Base model SHA-256</dt>
          <dd className="mono small">{a.baseModelSha256 ?? "–"}</dd>
        </div>
        <div>
          <dt>Trainer command</dt>
          <dd className="mono small">{a.trainerCommand ?? "–"}</dd>
        </div>
      </dl>
      <h4>Held-out scores</h4>
      {a.evalResults.length === 0 ? (
        <p className="muted">Not evaluated yet.</p>
      ) : (
        <ul>
          {a.evalResults.map((result) => (
            <li key={result.id}>
              {result.suite}: {result.accuracy !== null ? `accuracy ${formatPercent(result.accuracy)}` : `win rate ${formatPercent(result.winRate)}, mean return ${formatNumber(result.meanReturn, 3)}`} (n = {result.n})
            </li>
          ))}
        </ul>
      )}
      <h4>Training data manifest</h4>
      {a.manifest ? <pre className="code-block">{JSON.stringify(a.manifest, null, 2)}</pre> : <p className="muted">None recorded.</p>}
      {a.log && (
        <details>
          <summary>Trainer log</summary>
          <pre className="code-block log">{a.log}</pre>
        </details>
      )}
    </article>
  );
}
