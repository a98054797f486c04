import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { TrainerCheck } from "./TrainerCheck.js";

/** `#/settings`: where the workspace lives and which engine parts this process has. */
export function SettingsView() {
  const api = useApi();
  const info = useQuery("info", () => api.getInfo({}));
  if (info.error) return <ErrorBox error={info.error} onRetry={info.reload} />;
  if (!info.data) return <Loading what="settings" />;
  const i = info.data;
  const yes = (flag: boolean) => (flag ? <span className="ok">available</span> : <span className="bad">not available</span>);
  return (
    <section className="view" data-testid="settings-view">
      <h2>Settings</h2>
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
      <TrainerCheck />
      <p className="muted small">Choose another workspace with <code>spade serve --db &lt;path&gt;</code> or the <code>SPADE_WORKSPACE</code> variable.</p>
    </section>
  );
}
