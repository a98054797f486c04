import type { RunDiagnosis, RunStatus } from "../../../../../shared/api/runTypes.js";
import { diagnosisHeading } from "../lib/diagnosisHeading.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { TextWithCode } from "../../../components/TextWithCode.js";

/** Why no attempt of the run is valid, with a link to the invalid attempts (their replies are one click away). */
export function DiagnosisBanner({ runId, status, diagnosis }: { runId: number; status: RunStatus; diagnosis: RunDiagnosis }) {
  return (
    <div className="diagnosis" role="status" data-testid="diagnosis-banner" data-kind={diagnosis.kind}>
      <strong>{diagnosisHeading(status)}</strong> <TextWithCode text={diagnosis.message} />.{" "}
      <a href={routes.envs({ run: runId, valid: false })}>Invalid attempts</a> · open one to see the designer&apos;s prompt and reply. Fix the config with “Clone run”.
    </div>
  );
}
