import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { prepareSetMemberStats } from "../lib/prepareSetMemberStats.js";
import { ExportPanel } from "./ExportPanel.js";
import { OpenMemberButton } from "./OpenMemberButton.js";

/** The members of one environment set (`#/envs?set=<name>`). */
export function EnvSetPanel({ name }: { name: string }) {
  const api = useApi();
  const set = useQuery(`envset:${name}`, () => api.getEnvSet({ name }));
  if (set.error) return <ErrorBox error={set.error} onRetry={set.reload} />;
  if (!set.data) return <Loading what={`set ${name}`} />;
  return (
    <div data-testid="env-set">
      <h3>
        Set “{set.data.name}”{" "}
        <span className="muted small">
          {set.data.members} environments · a fixed-pool run draws from it with <code>{`"designer": {"kind": "fixed", "set": ${JSON.stringify(set.data.name)}}`}</code>
        </span>
      </h3>
      <p>
        <a className="button-link" href={routes.fixedPoolRun(set.data.name)} data-testid="fixed-pool-run">
          Start a fixed-pool run on this set
        </a>{" "}
        <span className="muted small">
          Open a member to read its code, validate it and play it by hand. Statistics count every play of a member in any run; a member not played yet shows the values it was added with (in italics).
        </span>
      </p>
      <ExportPanel scope={{ set: set.data.name }} />
      <table className="table compact">
        <thead>
          <tr>
            <th>Class</th>
            <th>Skill</th>
            <th>Runs</th>
            <th>Plays (no hint / hint)</th>
            <th>Win</th>
            <th>Hint win</th>
            <th>Regret</th>
            <th>Source</th>
          </tr>
        </thead>
        <tbody>
          {set.data.items.map((item) => {
            const stats = prepareSetMemberStats(item);
            return (
              <tr key={item.codeSha256} data-testid="set-member" className={stats.basis === "added" ? "stats-added" : undefined}>
                <td>
                  {item.environmentId !== null ? (
                    <a href={routes.env(item.environmentId)}>{item.className ?? `#${item.environmentId}`}</a>
                  ) : (
                    <OpenMemberButton set={name} codeSha256={item.codeSha256} label={item.className ?? item.codeSha256.slice(0, 12)} />
                  )}
                </td>
                <td>{item.skill ?? "–"}</td>
                <td>{stats.runs}</td>
                <td>{stats.plays}</td>
                <td>{stats.winRate}</td>
                <td>{stats.hintWinRate}</td>
                <td>{stats.regret}</td>
                <td className="muted small">{item.source}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
