import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listRuns, type Run } from "../store/queries/runs.js";

/**
 * The run `--resume` continues: the newest unfinished run of the workspace whose stored config is
 * this one, the LoRA adapters aside (a run may go on with a newer adapter). Null when there is none.
 */
export function findResumableRun(db: ReadonlyDb, config: RunConfig): Run | null {
  const wanted = withoutAdapters(config);
  for (const run of listRuns(db)) {
    if (run.status === "completed") continue;
    try {
      if (withoutAdapters(parseRunConfig(run.config, `run ${run.id}`)) === wanted) return run;
    } catch {
      continue;
    }
  }
  return null;
}

function withoutAdapters(config: RunConfig): string {
  const { lora: _lora, ...backend } = config.backend as RunConfig["backend"] & { lora?: unknown };
  return JSON.stringify({ ...config, backend });
}
