import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { DesignerExchange } from "./DesignerExchange.js";
import { EditPanel } from "./EditPanel.js";
import { EpisodeList } from "./EpisodeList.js";
import { MemoryFlagsPanel } from "./MemoryFlagsPanel.js";
import { PlayPanel } from "./PlayPanel.js";
import { StatsPanel } from "./StatsPanel.js";
import { TextWithCode } from "../../../components/TextWithCode.js";

export function EnvDetailView({ envId }: { envId: number }) {
  const api = useApi();
  const env = useQuery(`env:${envId}`, () => api.getEnvironment({ envId }));
  if (env.error) return <ErrorBox error={env.error} onRetry={env.reload} />;
  if (!env.data) return <Loading what={`environment ${envId}`} />;
  const e = env.data;
  return (
    <section className="view env-view" data-testid="env-view">
      <header className="view-head">
        <h2>
          {e.className ?? "(no class)"} <span className="muted">#{e.id}</span>
        </h2>
        <span className={e.valid ? "badge badge-completed" : "badge badge-failed"}>{e.valid ? "valid" : "invalid"}</span>
        {e.novelty && <span className="badge">{e.novelty}</span>}
        <span className="muted small">
          {e.source}
          {e.runId !== null && (
            <>
              {" "}
              · <a href={routes.run(e.runId)}>run #{e.runId}</a> · iteration {e.iteration} · slot {e.slot} · attempt {(e.attempt ?? 0) + 1}
            </>
          )}
          {e.parentId !== null && (
            <>
              {" "}
              · from <a href={routes.env(e.parentId)}>#{e.parentId}</a>
            </>
          )}
          {e.childIds.map((child) => (
            <span key={child}>
              {" "}
              · version <a href={routes.env(child)}>#{child}</a>
            </span>
          ))}
        </span>
      </header>
      <MemoryFlagsPanel key={e.id} envId={e.id} flags={e.memory} valid={e.valid} />
      <div className="env-columns">
        <div className="env-main">
          {/* A reply without code: what the model wrote comes first. */}
          {!e.code && <DesignerExchange prompt={e.prompt ?? null} rawReply={e.rawReply ?? null} valid={e.valid} error={e.validationError} />}
          <EditPanel key={e.id} envId={e.id} code={e.code} stored={e.validation} />
          {e.code && <DesignerExchange prompt={e.prompt ?? null} rawReply={e.rawReply ?? null} valid={e.valid} error={e.validationError} />}
        </div>
        <aside className="env-side">
          <h3>Statistics</h3>
          <StatsPanel stats={e.stats} />
          <h3>Hint</h3>
          {e.hint ? (
            <p data-testid="hint">
              {e.hint.text} <span className="muted small">({e.hint.source === "env" ? "the environment's hint()" : "hint writer"})</span>
            </p>
          ) : e.hintSkipped ? (
            <p className="bad" data-testid="hint-skipped">
              Hinted plays skipped: <TextWithCode text={e.hintSkipped} />
            </p>
          ) : (
            <p className="muted">No hint.</p>
          )}
          <h3>Grounding document</h3>
          {e.documentId ? <a href={routes.corpus(e.documentId)}>{e.documentId}</a> : <p className="muted">None.</p>}
          {(e.skill || e.difficulty) && (
            <p className="muted small">
              skill {e.skill ?? "–"} · difficulty {e.difficulty ?? "–"}
            </p>
          )}
          <h3>Play by hand</h3>
          {e.code ? (
            <PlayPanel envId={e.id} hint={e.hint?.text ?? null} />
          ) : (
            <p className="muted" data-testid="no-play">
              Nothing to play: this attempt has no code.
            </p>
          )}
        </aside>
      </div>
      <h3>Episodes</h3>
      <EpisodeList episodes={e.episodes} />
    </section>
  );
}
