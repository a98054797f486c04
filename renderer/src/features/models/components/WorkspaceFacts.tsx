import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";

/**
 * Where the workspace lives and which engine parts this process has: nothing here is set from the
 * window (the workspace is chosen when the workbench starts), so it sits on the Models page.
 * `settings-view` stays its test id: `#/settings` bookmarks and the ui benchmark open it.
 */
export function WorkspaceFacts() {
  const api = useApi();
  const info = useQuery("info", () => api.getInfo({}));
  if (info.error) return <ErrorBox error={info.error} onRetry={info.reload} />;
  if (!info.data) return <Loading what="the workspace" />;
  const i = info.data;
  const yes = (flag: boolean) => (flag ? <span className="ok">available</span> : <span className="bad">not available</span>);
  return (
    <div className="card" id="workspace" data-testid="settings-view">
      <h3>Workspace</h3>
      <dl className="stats">
        <div>
          <dt>Workspace</dt>
          <dd>{i.workspacePath}</dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{i.version}</dd>
        </div>
        <div>
          <dt>Shell</dt>
          <dd>
            {i.shell} ({api.transport === "ipc" ? "Electron IPC" : "loopback HTTP + WebSocket"})
          </dd>
        </div>
        <div>
          <dt>Validation</dt>
          <dd>{yes(i.validation)}</dd>
        </div>
        <div>
          <dt>Manual play</dt>
          <dd>{yes(i.play)}</dd>
        </div>
        <div>
          <dt>Run control</dt>
          <dd>{yes(i.runControl)}</dd>
        </div>
      </dl>
      <p className="muted small">
        Open another workspace with <code>npm start -- --db &lt;path&gt;</code>, <code>spade serve --db &lt;path&gt;</code> or the <code>SPADE_WORKSPACE</code> variable.
      </p>
    </div>
  );
}
