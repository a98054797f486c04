import { useState } from "react";
import type { EnvExportResult } from "../../../../../shared/api/envExportTypes.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { defaultExportDir, exportFormatChoices, prepareExportRequest, type ExportScope } from "../lib/prepareExportRequest.js";

/** "Export…": the environments of a set or of the list's run as packages for another RL stack. */
export function ExportPanel({ scope }: { scope: ExportScope }) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const [format, setFormat] = useState<string>(exportFormatChoices[0]!.format);
  const [outDir, setOutDir] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<EnvExportResult | null>(null);
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)} data-testid="export-open">
        Export…
      </button>
    );
  }
  async function submit() {
    const prepared = prepareExportRequest({ format, outDir }, scope);
    if ("error" in prepared) return setError(prepared.error);
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await api.exportEnvironments(prepared.request));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="panel" data-testid="export-panel">
      <label>
        Format{" "}
        <select value={format} onChange={(event) => setFormat(event.target.value)} data-testid="export-format">
          {exportFormatChoices.map((choice) => (
            <option key={choice.format} value={choice.format}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>{" "}
      <label>
        Folder <input value={outDir} placeholder={defaultExportDir(format)} onChange={(event) => setOutDir(event.target.value)} data-testid="export-dir" />
      </label>{" "}
      <button type="button" onClick={submit} disabled={busy} data-testid="export-submit">
        {busy ? "Exporting…" : "Export"}
      </button>{" "}
      <button type="button" className="link-button" onClick={() => setOpen(false)}>
        Close
      </button>
      <p className="muted small">Generated environments are untrusted code: every package says so and runs them in their own process or container.</p>
      {error && <p className="bad small" data-testid="export-error">{error}</p>}
      {result && (
        <p className="good small" data-testid="export-result">
          Wrote {result.packages} {result.format} {result.format === "game-files" ? "games" : "packages"} ({result.files} files) of {result.selection} to <code>{result.outDir}</code>
        </p>
      )}
    </div>
  );
}
