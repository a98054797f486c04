import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";

/** Links to the workspace's environment sets (`spade envs import` / export). */
export function EnvSetsBar({ current }: { current: string | null }) {
  const api = useApi();
  const sets = useQuery("envsets", () => api.listEnvSets({}));
  if (!sets.data || sets.data.length === 0) return null;
  return (
    <p className="small" data-testid="env-sets">
      <span className="muted">Sets: </span>
      {current !== null && <a href="#/envs">all environments</a>}
      {sets.data.map((set) => (
        <span key={set.name}>
          {" · "}
          {set.name === current ? <strong>{set.name}</strong> : <a href={`#/envs?set=${encodeURIComponent(set.name)}`}>{set.name}</a>} <span className="muted">({set.members})</span>
        </span>
      ))}
    </p>
  );
}
