import { useState, type FormEvent } from "react";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { ProgressBar } from "../../../components/ProgressBar.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { useModelProgress } from "../hooks/useModelProgress.js";

function megabytes(bytes: number | null): string {
  return bytes === null ? "?" : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Downloads a model by URI (`hf:owner/repo/file.gguf`, `hf:owner/repo:Q4_K_M` or https) into the models folder, with progress. */
export function DownloadForm({ onDownloaded, initialUri = "" }: { onDownloaded: () => void; initialUri?: string }) {
  const api = useApi();
  const [uri, setUri] = useState(initialUri);
  const [active, setActive] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const progress = useModelProgress();
  const current = active ? progress[active] : undefined;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const wanted = uri.trim();
    setError(null);
    setDone(null);
    setActive(wanted);
    try {
      const file = await api.downloadModel({ uri: wanted });
      setDone(`${file.name} (${megabytes(file.bytes)}) is in the models folder.`);
      onDownloaded();
    } catch (err) {
      setError(err as Error);
    } finally {
      setActive(null);
    }
  }

  return (
    <form className="card download-form" onSubmit={submit} aria-label="Download a model" data-testid="download-form">
      <label>
        Download a model
        <input value={uri} onChange={(e) => setUri(e.target.value)} placeholder="hf:owner/repo:Q4_K_M, hf:owner/repo/model.Q4_K_M.gguf or https://…/model.gguf" aria-label="model URI" disabled={active !== null} />
      </label>
      <button type="submit" disabled={active !== null || uri.trim() === ""}>
        {active ? "Downloading…" : "Download"}
      </button>
      {active && (
        <button type="button" onClick={() => void api.cancelModelDownload({ uri: active })}>
          Cancel
        </button>
      )}
      {active && <ProgressBar label={`${active}${current?.bytes ? ` · ${megabytes(current.bytes)} of ${megabytes(current.totalBytes)}` : ""}`} fraction={current?.fraction ?? null} />}
      {error && <ErrorBox error={error} />}
      {done && <p className="ok small">{done}</p>}
    </form>
  );
}
