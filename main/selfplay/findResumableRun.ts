import { classifyResumeChanges, type ResumeChanges } from "../../shared/configDiff.js";
import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listRuns, type Run } from "../store/queries/runs.js";

/** Keys `--resume` takes from the given config without asking: `--adapter` changes them on purpose. */
const followedKeys = ["backend.lora"];

/** An unfinished run `--resume` could continue, and how its stored config differs from the given one. */
export interface ResumeCandidate {
  run: Run;
  changes: ResumeChanges;
}

/**
 * The run `--resume` continues: the newest unfinished run of the workspace whose stored config is
 * this one, the LoRA adapters aside (a run may go on with a newer adapter). When no stored config
 * matches, the unfinished run whose config differs in the fewest keys (the newest among equals),
 * with the differences; null when the workspace has no unfinished run.
 */
export function findResumableRun(db: ReadonlyDb, config: RunConfig): ResumeCandidate | null {
  let closest: (ResumeCandidate & { count: number }) | null = null;
  for (const run of listRuns(db)) {
    if (run.status === "completed") continue;
    const changes = classifyResumeChanges(storedConfig(run), config, followedKeys);
    const count = changes.safe.length + changes.refused.length;
    if (count === 0) return { run, changes };
    if (closest === null || count < closest.count || (count === closest.count && run.id > closest.run.id)) closest = { run, changes, count };
  }
  return closest && { run: closest.run, changes: closest.changes };
}

/** The stored config read with today's defaults (so a key added since compares equal); as stored when it no longer parses. */
function storedConfig(run: Run): unknown {
  try {
    return parseRunConfig(run.config, `run ${run.id}`);
  } catch {
    return run.config;
  }
}
