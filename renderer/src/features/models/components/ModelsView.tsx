import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { formatTime } from "../../../lib/format/formatNumber.js";
import { routes } from "../../../lib/router/parseRoute.js";

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `#/models`: local GGUF files and the trained adapters with their lineage. */
export function ModelsView() {
  const api = useApi();
  const models = useQuery("models", () => api.listModels({}));
  const adapters = useQuery("adapters", () => api.listAdapters({}));
  return (
    <section className="view" data-testid="models-view">
      <h2>Models</h2>
      {models.error && <ErrorBox error={models.error} onRetry={models.reload} />}
      {!models.data && !models.error && <Loading what="models" />}
      {models.data && (
        <>
          <p className="muted small">Folder: {models.data.dir}</p>
          {models.data.files.length === 0 ? (
            <p className="empty">No GGUF files in the models folder.</p>
          ) : (
            <table className="table compact">
              <tbody>
                {models.data.files.map((file) => (
                  <tr key={file.path}>
                    <td>{file.name}</td>
                    <td>{megabytes(file.bytes)}</td>
                    <td className="muted small">{file.path}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      <h2>Adapters</h2>
      {adapters.error && <ErrorBox error={adapters.error} onRetry={adapters.reload} />}
      {adapters.data && adapters.data.length === 0 && <p className="empty">No adapters trained yet.</p>}
      {adapters.data && adapters.data.length > 0 && (
        <table className="table compact" data-testid="adapters-table">
          <thead>
            <tr>
              <th>Adapter</th>
              <th>Run</th>
              <th>From</th>
              <th>Status</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {adapters.data.map((adapter) => (
              <tr key={adapter.id}>
                <td>
                  #{adapter.id} {adapter.name}
                </td>
                <td>{adapter.runId !== null ? <a href={routes.run(adapter.runId)}>#{adapter.runId}</a> : "–"}</td>
                <td>{adapter.parentId !== null ? `#${adapter.parentId}` : "base"}</td>
                <td>{adapter.status ?? "–"}</td>
                <td>{formatTime(adapter.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
