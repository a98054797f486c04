import { useMemo, useState } from "react";
import type { ValidationReport } from "../../../../../shared/environment.js";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { validationMarkers } from "../lib/validationMarkers.js";
import { CodeEditor } from "./CodeEditor.js";
import { ValidationPanel } from "./ValidationPanel.js";

/** The code in Monaco: edit, re-validate, save as a new version linked to this one. */
export function EditPanel({ envId, code, stored }: { envId: number; code: string; stored: ValidationReport | null }) {
  const api = useApi();
  const [draft, setDraft] = useState(code);
  const [report, setReport] = useState<{ report: ValidationReport; forCode: string } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState<"validate" | "save" | null>(null);
  /** Bumped by Revert: a new editor starts from the stored code. */
  const [revision, setRevision] = useState(0);
  const edited = draft !== code;
  const shown = report && report.forCode === draft ? report.report : edited ? null : stored;
  const markers = useMemo(() => validationMarkers(shown, draft.split("\n").length), [shown, draft]);

  async function act(kind: "validate" | "save") {
    setBusy(kind);
    setError(null);
    try {
      if (kind === "validate") {
        setReport({ report: await api.validateCode({ code: draft }), forCode: draft });
      } else {
        const saved = await api.saveEnvironmentVersion({ parentId: envId, code: draft });
        window.location.hash = routes.env(saved.envId);
      }
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="edit-panel">
      <div className="toolbar">
        <button type="button" onClick={() => act("validate")} disabled={busy !== null}>
          {busy === "validate" ? "Validating…" : "Validate"}
        </button>
        <button type="button" onClick={() => act("save")} disabled={busy !== null || !edited}>
          {busy === "save" ? "Saving…" : "Save as new version"}
        </button>
        <button
          type="button"
          onClick={() => {
            setDraft(code);
            setRevision((r) => r + 1);
          }}
          disabled={!edited}
        >
          Revert
        </button>
        {edited && <span className="muted small">edited</span>}
      </div>
      <CodeEditor key={revision} initialValue={code} onChange={setDraft} markers={markers} />
      {error && <ErrorBox error={error} />}
      <ValidationPanel report={shown} title={report && report.forCode === draft ? "Re-validation" : "Validation"} />
    </div>
  );
}
