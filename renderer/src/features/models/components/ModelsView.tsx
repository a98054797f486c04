import { useState } from "react";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { prepareEvalComparison } from "../../../lib/evals/prepareEvalComparison.js";
import { AdapterDetailPanel } from "./AdapterDetailPanel.js";
import { AdapterTable } from "./AdapterTable.js";
import { DownloadForm } from "./DownloadForm.js";
import { ModelFileTable } from "./ModelFileTable.js";
import { RecommendedModels } from "./RecommendedModels.js";
import { TrainerCheck } from "./TrainerCheck.js";
import { WorkspaceFacts } from "./WorkspaceFacts.js";

/**
 * `#/models[?adapter=<id>]`: local GGUF files (what each is, whether it fits), downloads by URI,
 * recommended models, the trained adapters with their lineage, and this machine: the trainer's
 * check and the workspace (there is nothing to set in the window, so no Settings page).
 */
export function ModelsView({ adapterId }: { adapterId: number | null }) {
  const api = useApi();
  const [picked, setPicked] = useState("");
  const models = useQuery("models", () => api.listModels({}));
  const trainer = useQuery("trainer-check", () => api.checkTrainer({}));
  const adapters = useQuery("adapters", async () => {
    const [list, results] = await Promise.all([api.listAdapters({}), api.listEvalResults({})]);
    return { list, comparison: prepareEvalComparison(results, list) };
  });
  return (
    <section className="view" data-testid="models-view">
      <h2>Models</h2>
      {models.error && <ErrorBox error={models.error} onRetry={models.reload} />}
      {!models.data && !models.error && <Loading what="models" />}
      {models.data && (
        <>
          <p className="muted small">Folder: {models.data.dir}</p>
          {models.data.files.length === 0 ? (
            <p className="empty">No GGUF files in the models folder yet.</p>
          ) : (
            <ModelFileTable files={models.data.files} />
          )}
        </>
      )}
      <DownloadForm key={picked} initialUri={picked} onDownloaded={models.reload} />
      <RecommendedModels onPick={setPicked} memoryBytes={trainer.data?.device.totalBytes ?? null} deviceKind={trainer.data?.device.kind ?? null} checking={trainer.loading} />
      <h2>Adapters</h2>
      {adapters.error && <ErrorBox error={adapters.error} onRetry={adapters.reload} />}
      {adapters.data && adapters.data.list.length === 0 && <p className="empty">No adapters trained yet (<code>spade train</code>).</p>}
      {adapters.data && adapters.data.list.length > 0 && <AdapterTable adapters={adapters.data.list} comparison={adapters.data.comparison} selected={adapterId} />}
      {adapterId !== null && <AdapterDetailPanel key={adapterId} adapterId={adapterId} />}
      <h2>This machine</h2>
      <TrainerCheck check={trainer} />
      <WorkspaceFacts />
    </section>
  );
}
