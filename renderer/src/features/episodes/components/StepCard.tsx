import type { ReplayStep } from "../lib/prepareReplay.js";
import { formatNumber } from "../../../lib/format/formatNumber.js";

/** One step of an episode: what the agent saw, thought and did, and what came back. */
export function StepCard({ step }: { step: ReplayStep | undefined }) {
  if (!step) return <div className="step-card muted">No step here (this play ended earlier).</div>;
  return (
    <div className="step-card" data-testid="step-card" data-step={step.index}>
      {step.seen !== null && (
        <>
          <h5>Observation</h5>
          <pre className="obs">{step.seen}</pre>
        </>
      )}
      {step.reasoning && (
        <>
          <h5>Reasoning</h5>
          <pre className="reasoning">{step.reasoning}</pre>
        </>
      )}
      <h5>Action</h5>
      <pre className="action" data-testid="step-action">{step.action ?? "(none)"}</pre>
      <h5>
        Result · reward <strong>{formatNumber(step.reward, 3)}</strong>
        {step.end && (
          <span className={`badge badge-end-${step.end.tone}`} data-testid="step-end">
            {step.end.label}
          </span>
        )}
      </h5>
      <pre className="obs">{step.observation ?? ""}</pre>
    </div>
  );
}
