import { useState, type FormEvent } from "react";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { buildRunConfig, defaultRunForm, type RunForm } from "../lib/buildRunConfig.js";

const rewardKinds = ["blend", "regret", "solveRate", "learningPotential", "variance", "azr", "rzero"];

export function StartRunForm({ onStarted }: { onStarted: (runId: number) => void }) {
  const api = useApi();
  const [form, setForm] = useState<RunForm>(defaultRunForm);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof RunForm>(key: K, value: RunForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const text = (key: keyof RunForm, label: string, placeholder?: string) => (
    <label>
      {label}
      <input value={String(form[key])} placeholder={placeholder} onChange={(e) => set(key, e.target.value as never)} />
    </label>
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const { runId } = await api.startRun({ config: buildRunConfig(form) });
      onStarted(runId);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card form-grid" onSubmit={submit} aria-label="Start a run">
      <h3>Start a run</h3>
      {text("name", "Name", "optional")}
      <label>
        Backend
        <select value={form.backendKind} onChange={(e) => set("backendKind", e.target.value as RunForm["backendKind"])}>
          <option value="llama">local GGUF (llama.cpp)</option>
          <option value="openai">OpenAI-compatible server</option>
        </select>
      </label>
      {form.backendKind === "llama" ? text("modelPath", "Model path", "/path/to/model.gguf") : (
        <>
          {text("baseUrl", "Base URL")}
          {text("model", "Model")}
        </>
      )}
      {text("corpusPath", "Corpus", "JSONL / Parquet / .txt; empty = no corpus")}
      {text("seed", "Seed")}
      {text("iterations", "Iterations")}
      {text("envsPerIteration", "Envs / iteration")}
      {text("plays", "Plays")}
      {text("hintPlays", "Hinted plays")}
      {text("maxTurns", "Max turns")}
      <label>
        Reward
        <select value={form.rewardKind} onChange={(e) => set("rewardKind", e.target.value)}>
          {rewardKinds.map((kind) => (
            <option key={kind}>{kind}</option>
          ))}
        </select>
      </label>
      <label className="check">
        <input type="checkbox" checked={form.memoryEnabled} onChange={(e) => set("memoryEnabled", e.target.checked)} /> Environment memory
      </label>
      <div className="form-actions">
        <button type="submit" disabled={busy}>
          {busy ? "Starting…" : "Start"}
        </button>
      </div>
      {error && <ErrorBox error={error} />}
    </form>
  );
}
