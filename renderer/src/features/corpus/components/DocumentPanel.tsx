import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { documentLabel } from "../lib/documentLabel.js";

export function DocumentPanel({ documentId }: { documentId: string }) {
  const api = useApi();
  const doc = useQuery(`doc:${documentId}`, () => api.getDocument({ documentId }));
  if (doc.error) return <ErrorBox error={doc.error} onRetry={doc.reload} />;
  if (!doc.data) return <Loading what="document" />;
  const d = doc.data;
  return (
    <article data-testid="document-panel">
      <h3>{documentLabel(d)}</h3>
      <p className="muted small">
        {d.id} · {d.words ?? "?"} words · {d.corpus ?? ""}
      </p>
      <h4>Environments grounded on it</h4>
      <ul>
        {d.environmentList.map((env) => (
          <li key={env.id}>
            <a href={routes.env(env.id)}>
              #{env.id} {env.className ?? "(no class)"}
            </a>{" "}
            <span className={env.valid ? "ok small" : "bad small"}>{env.valid ? "valid" : "invalid"}</span>
          </li>
        ))}
      </ul>
      <pre className="doc-text">{d.text}</pre>
    </article>
  );
}
