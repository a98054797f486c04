import { recommendedModels } from "../../../../../shared/recommendedModels.js";
import { prepareRecommendations } from "../lib/prepareRecommendations.js";

/**
 * Models known to write Python well enough for the designer, by the memory they need; for each
 * quantisation, before download, whether it plays and trains on this machine (`memoryBytes`: the
 * trainer's device memory, null when unknown; `deviceKind`: its kind, "cuda", "cpu", ...), training
 * as the trainer's memory model predicts it for the default settings. "Use" fills the download box.
 */
export function RecommendedModels({ onPick, memoryBytes, deviceKind, checking }: { onPick: (uri: string) => void; memoryBytes: number | null; deviceKind: string | null; checking: boolean }) {
  const rows = prepareRecommendations(recommendedModels, memoryBytes, deviceKind, checking);
  return (
    <div className="card" data-testid="recommended-models" data-memory={checking ? "checking" : memoryBytes === null ? "unknown" : "known"}>
      <h3>Recommended models</h3>
      {checking && (
        <p className="loading" role="status" data-testid="recommended-checking">
          Checking this machine&apos;s memory (the trainer&apos;s device) to say what plays and trains here…
        </p>
      )}
      <p className="muted small">
        {memoryBytes === null
          ? `Pick by your GPU's memory (or RAM, CPU only)${checking ? "" : ": this machine's memory is not known"}.`
          : `Against this machine's ${(memoryBytes / 2 ** 30).toFixed(1)} GiB (the trainer's device), per quantisation: whether it plays, and whether it also trains (the trainer's memory model, default settings).`}{" "}
        The URI also works as <code>backend.modelPath</code> in a run config.
      </p>
      <table className="table compact">
        <thead>
          <tr>
            <th>Memory</th>
            <th>Model</th>
            <th>Quantisations (download, here)</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ model, quantisations }) => (
            <tr key={model.uri}>
              <td>{model.memoryGb} GB</td>
              <td>
                {model.label}
                <div className="muted small">{model.note}</div>
              </td>
              <td>
                {quantisations.map((q) => (
                  <div key={q.name} className="small" data-testid="recommended-quantisation">
                    <button type="button" onClick={() => onPick(q.uri)} aria-label={`use ${model.label} ${q.name}`}>
                      Use
                    </button>{" "}
                    {q.name} ({q.fileGb.toFixed(1)} GB):{" "}
                    <span className={q.verdict === "too big" ? "bad" : q.verdict === "checking…" ? "muted" : "ok"} title={`play about ${q.playGb.toFixed(1)} GiB, training about ${q.trainGb === null ? "n/a" : `${q.trainGb.toFixed(1)} GiB`}`}>
                      {q.verdict}
                    </span>
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
