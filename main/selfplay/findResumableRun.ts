import { classifyResumeChanges, type ResumeChanges } from "../../shared/configDiff.js";
import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listRuns, type Run } from "../store/queries/runs.js";

/** Keys `--resume` takes from the given config without asking: `--adapter` changes them on purpose. */
const followedKeys = ["backend.lora"];

/** A run `--resume` could continue (or, `completed`, one with this config that has nothing left), and how its stored config differs from the given one. */
export interface ResumeCandidate {
  run: Run;
  changes: ResumeChanges;
  /** The run has completed: the config's own run is done, there is nothing to resume. */
  completed: boolean;
}

/**
 * The run `--resume` continues: the newest unfinished run of the workspace whose stored config is
 * this one, the LoRA adapters aside (a run may go on with a newer adapter). When no unfinished run
 * has it, the newest completed run with this config (`completed`: nothing to resume, never another
 * config's run); else the unfinished run whose config differs in the fewest keys (the newest among
 * equals), with the differences; null when the workspace has none of these.
 */
export function findResumableRun(db: ReadonlyDb, config: RunConfig): ResumeCandidate | null {
  let closest: (ResumeCandidate & { count: number }) | null = null;
  let completed: ResumeCandidate | null = null;
  for (const run of listRuns(db)) {
    const changes = classifyResumeChanges(storedConfig(run), config, followedKeys);
    const count = changes.safe.length + changes.refused.length;
    if (run.status === "completed") {
      if (count === 0 && completed === null) completed = { run, changes, completed: true };
      continue;
    }
    if (count === 0) return { run, changes, completed: false };
    if (closest === null || count < closest.count || (count === closest.count && run.id > closest.run.id)) closest = { run, changes, completed: false, count };
  }
  if (completed) return completed;
  return closest && { run: closest.run, changes: closest.changes, completed: false };
}

/** The stored config read with today's defaults (so a key added since compares equal); as stored when it no longer parses. */
function storedConfig(run: Run): unknown {
  try {
    return parseRunConfig(run.config, `run ${run.id}`);
  } catch {
    return run.config;
  }
}
