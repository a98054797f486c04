import type { ModelFile } from "../../../../../shared/api/modelTypes.js";
import { fitLabel, formatBytes, formatParameters } from "../lib/formatModelFacts.js";

/** The local GGUF files: what each is (GgufInsights) and whether it fits this machine. */
export function ModelFileTable({ files }: { files: ModelFile[] }) {
  return (
    <table className="table compact" data-testid="models-table">
      <thead>
        <tr>
          <th>File</th>
          <th>Architecture</th>
          <th>Parameters</th>
          <th>Quantisation</th>
          <th>Trained context</th>
          <th>Size</th>
          <th>Fits this machine?</th>
        </tr>
      </thead>
      <tbody>
        {files.map((file) => {
          const facts = file.insights;
          const fit = facts ? fitLabel(facts.fit.verdict) : null;
          return (
            <tr key={file.path} data-model={file.name}>
              <td title={file.path}>{file.name}</td>
              <td>{facts?.architecture ?? "?"}</td>
              <td>{facts ? formatParameters(facts.parameters) : "?"}</td>
              <td>{facts?.quantization ?? "?"}</td>
              <td>{facts?.contextLength ? `${facts.contextLength.toLocaleString("en-US")} tokens` : "?"}</td>
              <td>{formatBytes(file.bytes)}</td>
              <td>
                {facts && fit ? (
                  <>
                    <span className={fit.className} data-testid="model-fit" data-verdict={facts.fit.verdict}>
                      {fit.text}
                    </span>{" "}
                    <span className="muted small">{facts.fit.summary}</span>
                  </>
                ) : (
                  <span className="muted small">{file.insightsError ?? "not read"}</span>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
