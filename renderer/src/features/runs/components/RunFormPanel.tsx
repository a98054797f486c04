import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { defaultRunForm } from "../lib/buildRunConfig.js";
import { formFromConfig } from "../lib/formFromConfig.js";
import { StartRunForm } from "./StartRunForm.js";

/** The start form: empty, filled with a stored run's config ("Clone run"), or set up for a fixed pool. */
export function RunFormPanel({ cloneFrom, fixedSet, onStarted }: { cloneFrom: number | null; fixedSet: string | null; onStarted: (runId: number) => void }) {
  const api = useApi();
  const source = useQuery(`clone:${cloneFrom ?? ""}`, async () => {
    if (cloneFrom === null) return null;
    const [run, models] = await Promise.all([api.getRun({ runId: cloneFrom }), api.listModels({}).catch(() => null)]);
    return { run, modelsDir: models?.dir };
  });
  if (cloneFrom !== null) {
    if (source.error) return <ErrorBox error={source.error} onRetry={source.reload} />;
    if (!source.data) return <Loading what={`run ${cloneFrom}'s config`} />;
    const { run, modelsDir } = source.data;
    const initial = formFromConfig(run.config, run.name ? `${run.name} (clone)` : `clone of run ${run.id}`, { modelsDir });
    return <StartRunForm title={`Clone run #${run.id}: edit and start`} initial={initial} onStarted={onStarted} />;
  }
  if (fixedSet !== null) return <StartRunForm title={`Fixed-pool run on “${fixedSet}”`} initial={{ ...defaultRunForm, designerKind: "fixed", designerSet: fixedSet }} onStarted={onStarted} />;
  return <StartRunForm onStarted={onStarted} />;
}
