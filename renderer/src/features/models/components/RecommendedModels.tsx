import { recommendedModels } from "../../../../../shared/recommendedModels.js";

/** Models known to write Python well enough for the designer, by the memory they need; "Use" fills the download box. */
export function RecommendedModels({ onPick }: { onPick: (uri: string) => void }) {
  return (
    <div className="card" data-testid="recommended-models">
      <h3>Recommended models</h3>
      <p className="muted small">
        Pick by your GPU&apos;s memory (or RAM, CPU only). The URI also works as <code>backend.modelPath</code> in a run config.
      </p>
      <table className="table compact">
        <thead>
          <tr>
            <th>Memory</th>
            <th>Model</th>
            <th>Download</th>
            <th>URI</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {recommendedModels.map((model) => (
            <tr key={model.uri}>
              <td>{model.memoryGb} GB</td>
              <td>
                {model.label}
                <div className="muted small">{model.note}</div>
              </td>
              <td>{model.fileGb.toFixed(1)} GB</td>
              <td>
                <code className="small">{model.uri}</code>
              </td>
              <td>
                <button type="button" onClick={() => onPick(model.uri)} aria-label={`use ${model.label}`}>
                  Use
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
