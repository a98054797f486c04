import type { RunDetail } from "../../../../../shared/api/runTypes.js";
import { TextWithCode } from "../../../components/TextWithCode.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { prepareHintsSkipped } from "../lib/prepareHintsSkipped.js";

/** Games played without their hinted plays, and why (no hint win rate, no regret for them). */
export function HintsSkippedNote({ skipped }: { skipped: RunDetail["hintsSkipped"] }) {
  const groups = prepareHintsSkipped(skipped);
  if (groups.length === 0) return null;
  return (
    <div className="notice" role="status" data-testid="hints-skipped">
      {groups.map((group) => (
        <p key={group.environmentIds[0]}>
          <strong>
            Hinted plays skipped for {group.environmentIds.length} game{group.environmentIds.length === 1 ? "" : "s"}
          </strong>{" "}
          ({group.environmentIds.map((id, i) => (
            <span key={id}>
              {i > 0 && ", "}
              <a href={routes.env(id)}>#{id}</a>
            </span>
          ))}
          ): <TextWithCode text={group.reason} />
        </p>
      ))}
    </div>
  );
}
