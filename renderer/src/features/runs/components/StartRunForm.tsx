import { useState, type ChangeEvent, type FormEvent, type ReactNode } from "react";
import { rewardKinds } from "../../../../../shared/runConfig.js";
import { ApiCallError } from "../../../../../shared/api/wire.js";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { defaultRunForm, type RunForm } from "../lib/buildRunConfig.js";
import { checkRunForm, fieldOfConfigError, type RunFormProblem } from "../lib/checkRunForm.js";
import { ModelPicker } from "./ModelPicker.js";
import { TextWithCode } from "../../../components/TextWithCode.js";
import { withBackend } from "../lib/trainingChoices.js";
import { ConfigFileError, formFromConfigFile } from "../lib/formFromConfigFile.js";
import { TrainingFields } from "./TrainingFields.js";

/** Starts a run: model, corpus and the loop's settings, checked with the engine's own config parser. */
export function StartRunForm({ onStarted, initial, title = "Start a run" }: { onStarted: (runId: number) => void; initial?: RunForm; title?: string }) {
  const api = useApi();
  const sets = useQuery("envsets", () => api.listEnvSets({}));
  const [form, setForm] = useState<RunForm>(initial ?? defaultRunForm);
  const [problem, setProblem] = useState<RunFormProblem | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof RunForm>(key: K, value: RunForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const note = (field: keyof RunForm) =>
    problem?.field === field ? (
      <span className="field-error" role="alert" data-testid={`error-${field}`}>
        <TextWithCode text={problem.message} />
      </span>
    ) : null;
  const field = (key: keyof RunForm, label: string, input: ReactNode) => (
    <label className={problem?.field === key ? "invalid" : undefined}>
      {label}
      {input}
      {note(key)}
    </label>
  );
  const text = (key: keyof RunForm, label: string, placeholder?: string) =>
    field(key, label, <input value={String(form[key])} placeholder={placeholder} onChange={(e) => set(key, e.target.value as never)} aria-label={label} />);

  /** Fills the form from a run config file (`spade run --config`'s), as Clone run fills it from a stored run. */
  async function load(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    try {
      setForm(formFromConfigFile(file.name, await file.text()));
      setProblem(null);
    } catch (err) {
      if (!(err instanceof ConfigFileError)) throw err;
      setProblem({ field: "configFile", message: err.message });
    } finally {
      event.target.value = "";
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    const checked = checkRunForm(form);
    if ("problem" in checked) {
      setProblem(checked.problem);
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      const { runId } = await api.startRun({ config: checked.config });
      onStarted(runId);
    } catch (err) {
      // The engine's edge parses the config again: its message names the field too.
      if (err instanceof ApiCallError && err.errorName === "InputError") setProblem({ field: fieldOfConfigError(err.message), message: err.message });
      else setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card form-grid" onSubmit={submit} aria-label="Start a run" data-testid="start-run-form" noValidate>
      <h3>{title}</h3>
      <label className={problem?.field === "configFile" ? "wide invalid" : "wide"}>
        <span>
          Fill from a run config file (what <code>spade run --config</code> takes, e.g. quick-start.json)
        </span>
        <input type="file" accept=".json,application/json" onChange={(e) => void load(e)} aria-label="run config file" />
        {problem?.field === "configFile" && (
          <span className="field-error" role="alert" data-testid="error-configFile">
            <TextWithCode text={problem.message} />
          </span>
        )}
      </label>
      {text("name", "Name", "optional")}
      {field(
        "backendKind",
        "Model",
        <select value={form.backendKind} onChange={(e) => setForm((f) => withBackend(f, e.target.value as RunForm["backendKind"]))} aria-label="backend">
          <option value="llama">local GGUF (llama.cpp)</option>
          <option value="openai">OpenAI-compatible server</option>
        </select>,
      )}
      {form.backendKind === "llama" ? (
        <>
          {field("modelPath", "Model file", <ModelPicker value={form.modelPath} onChange={(path) => set("modelPath", path)} />)}
          {text("contextSize", "Context size (tokens)", "empty: the engine's choice")}
        </>
      ) : (
        <>
          {text("baseUrl", "Base URL", "http://127.0.0.1:8000/v1")}
          {text("model", "Model name", "served model name")}
        </>
      )}
      {text("corpusPath", "Corpus", "file or folder; empty: none")}
      {text("seed", "Seed")}
      {text("iterations", "Iterations")}
      {text("envsPerIteration", "Envs / iteration")}
      {text("plays", "Plays")}
      {text("hintPlays", "Hinted plays")}
      {text("maxTurns", "Max turns")}
      {text("designerAttempts", "Designer attempts")}
      {text("designerMaxTokens", "Designer max tokens")}
      {text("agentMaxTokens", "Play max tokens")}
      {field(
        "rewardKind",
        "Designer reward",
        <select value={form.rewardKind} onChange={(e) => set("rewardKind", e.target.value)} aria-label="reward">
          {rewardKinds.map((kind) => (
            <option key={kind}>{kind}</option>
          ))}
        </select>,
      )}
      {field(
        "designerKind",
        "Designer",
        <select value={form.designerKind} onChange={(e) => set("designerKind", e.target.value as RunForm["designerKind"])} aria-label="designer">
          <option value="llm">the model writes environments</option>
          <option value="fixed">fixed pool (environment set)</option>
        </select>,
      )}
      {form.designerKind === "fixed" &&
        field(
          "designerSet",
          "Environment set",
          <select value={form.designerSet} onChange={(e) => set("designerSet", e.target.value)} aria-label="environment set">
            <option value="">(choose a set)</option>
            {(sets.data ?? []).map((s) => (
              <option key={s.name} value={s.name}>
                {s.name} ({s.members})
              </option>
            ))}
          </select>,
        )}
      <TrainingFields form={form} set={set} field={field} />
      <label className={problem?.field === "memoryEnabled" ? "check invalid" : "check"}>
        <input type="checkbox" checked={form.memoryEnabled} onChange={(e) => set("memoryEnabled", e.target.checked)} /> Environment memory
        {note("memoryEnabled")}
      </label>
      <label className={problem?.field === "extra" ? "wide invalid" : "wide"}>
        More settings (JSON, merged over the above)
        <textarea rows={Math.min(14, Math.max(3, form.extra.split("\n").length))} value={form.extra} onChange={(e) => set("extra", e.target.value)} placeholder='{"agent": {"temperature": 0.8}, "designer": {"attempts": 2}}' aria-label="more settings" />
        {note("extra")}
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
