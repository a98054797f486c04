import type { RunDiagnosis } from "../../../../../shared/api/runTypes.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { TextWithCode } from "../../../components/TextWithCode.js";

/** Why no attempt of the run is valid, with a link to the invalid attempts (their replies are one click away). */
export function DiagnosisBanner({ runId, diagnosis }: { runId: number; diagnosis: RunDiagnosis }) {
  return (
    <div className="diagnosis" role="status" data-testid="diagnosis-banner" data-kind={diagnosis.kind}>
      <strong>No valid environment yet.</strong> <TextWithCode text={diagnosis.message} />.{" "}
      <a href={routes.envs({ run: runId, valid: false })}>Invalid attempts</a> · open one to see the designer&apos;s prompt and reply. Fix the config with “Clone run”.
    </div>
  );
}
