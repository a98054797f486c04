import { ApiCallError } from "../../../shared/api/wire.js";
import { errorTitle } from "../lib/format/errorTitle.js";
import { TextWithCode } from "./TextWithCode.js";

/** A failed call, said plainly where the data would have been. */
export function ErrorBox({ error, onRetry }: { error: Error; onRetry?: () => void }) {
  const title = errorTitle(error instanceof ApiCallError ? error.errorName : error.name);
  return (
    <div className="error-box" role="alert">
      <span>
        <strong>{title}</strong>: <TextWithCode text={error.message} />
      </span>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}
