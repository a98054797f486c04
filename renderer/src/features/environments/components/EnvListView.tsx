import { useEffect, useState, type FormEvent } from "react";
import type { EnvironmentFilter } from "../../../../../shared/api/environmentTypes.js";
import { EnvironmentTable } from "../../../components/EnvironmentTable.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { filterFromQuery, queryFromFilter } from "../lib/filterFromQuery.js";
import { EnvSetPanel } from "./EnvSetPanel.js";
import { EnvSetsBar } from "./EnvSetsBar.js";
import { ExportPanel } from "./ExportPanel.js";

const fieldNames = ["run", "iteration", "valid", "regretMin", "regretMax", "winRateMin", "winRateMax", "q", "skill", "memory", "order"] as const;
type Fields = Record<(typeof fieldNames)[number], string>;

function fieldsOf(filter: EnvironmentFilter): Fields {
  const q = queryFromFilter(filter);
  return Object.fromEntries(fieldNames.map((name) => [name, q[name] ?? ""])) as Fields;
}

/** `#/envs?...`: every environment, filtered by the URL's query; `#/envs?set=<name>`: one environment set. */
export function EnvListView({ query }: { query: URLSearchParams }) {
  const set = query.get("set");
  if (set) {
    return (
      <section className="view" data-testid="envs-view">
        <h2>Environments</h2>
        <EnvSetsBar current={set} />
        <EnvSetPanel name={set} />
      </section>
    );
  }
  return <FilteredEnvironments query={query} />;
}

function FilteredEnvironments({ query }: { query: URLSearchParams }) {
  const filter = filterFromQuery(query);
  const [fields, setFields] = useState<Fields>(() => fieldsOf(filter));
  const key = query.toString();
  useEffect(() => setFields(fieldsOf(filterFromQuery(new URLSearchParams(key)))), [key]);
  const input = (name: keyof Fields, label: string, className = "narrow") => (
    <label>
      {label}
      <input className={className} value={fields[name]} onChange={(e) => setFields((f) => ({ ...f, [name]: e.target.value }))} />
    </label>
  );
  function apply(event: FormEvent) {
    event.preventDefault();
    window.location.hash = routes.envs(fields);
  }
  return (
    <section className="view" data-testid="envs-view">
      <h2>Environments</h2>
      <EnvSetsBar current={null} />
      <ExportPanel scope={typeof filter.runId === "number" ? { runId: filter.runId } : {}} />
      <form className="filters" onSubmit={apply} aria-label="Filters">
        {input("q", "Text", "")}
        {input("run", "Run")}
        {input("iteration", "Iteration")}
        <label>
          Validity
          <select value={fields.valid} onChange={(e) => setFields((f) => ({ ...f, valid: e.target.value }))}>
            <option value="">any</option>
            <option value="true">valid</option>
            <option value="false">invalid</option>
          </select>
        </label>
        {input("regretMin", "Regret ≥")}
        {input("regretMax", "Regret ≤")}
        {input("winRateMin", "Win ≥")}
        {input("winRateMax", "Win ≤")}
        {input("skill", "Skill", "")}
        <label>
          Memory
          <select value={fields.memory} onChange={(e) => setFields((f) => ({ ...f, memory: e.target.value }))}>
            <option value="">any</option>
            <option value="pinned">pinned</option>
            <option value="banned">banned</option>
            <option value="inMemory">in memory</option>
            <option value="none">not in memory</option>
          </select>
        </label>
        <label>
          Order
          <select value={fields.order} onChange={(e) => setFields((f) => ({ ...f, order: e.target.value }))}>
            <option value="">oldest</option>
            <option value="newest">newest</option>
            <option value="slot">by slot (repairs under their attempt)</option>
            <option value="regret">regret</option>
            <option value="winRate">win rate</option>
            <option value="designerReward">designer reward</option>
            <option value="run">run (newest first)</option>
            <option value="skill">skill</option>
            <option value="memory">memory state (pinned first)</option>
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      <EnvironmentTable filter={filter} height={Math.max(300, window.innerHeight - 240)} sortHref={(order) => routes.envs({ ...queryFromFilter(filter), order })} />
    </section>
  );
}
