import { dirname, isAbsolute, resolve } from "node:path";
import type { RunConfig } from "../../shared/runConfig.js";
import type { TrainingEvalConfig } from "../../shared/trainingConfig.js";
import { withAdapter } from "../adapters/withAdapter.js";
import { evaluateModel } from "../eval/evaluateModel.js";
import { suiteNeedsSandbox, suiteScore } from "../eval/evaluateSuite.js";
import { openEnvironmentSandbox, type EnvironmentSandbox } from "../eval/openEnvironmentSandbox.js";
import { promotionGate } from "../eval/promotionGate.js";
import { latestEvalResult, storedScore, storeEvalReport } from "../eval/storeEvalReport.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import type { Adapter } from "../store/queries/adapters.js";
import type { GateDecision } from "./TrainingRound.js";

/**
 * The promotion gate of `training.eval`: the new adapter and the one in use (null: the base
 * model; its stored score is reused) are scored on the held-out suite, and the new one is used
 * unless it is worse by more than the margin (main/eval/promotionGate.ts).
 */
export function suiteGate(db: WritableDb, config: RunConfig, gate: TrainingEvalConfig): (candidate: Adapter, parent: Adapter | null) => Promise<GateDecision> {
  const workspace = dirname(db.name);
  const suitePath = isAbsolute(gate.suite) ? gate.suite : resolve(workspace, gate.suite);
  let sandbox: EnvironmentSandbox | null = null;
  const evaluate = async (adapter: Adapter | null) => {
    if (suiteNeedsSandbox(suitePath)) sandbox ??= await openEnvironmentSandbox({ stepTimeoutMs: config.sandbox.stepTimeoutMs });
    try {
      return await evaluateModel(withAdapter(config.backend, adapter?.path ?? null), workspace, {
        suitePath,
        limit: gate.limit ?? undefined,
        maxTokens: gate.maxTokens,
        maxTurns: config.maxTurns,
        openEnvironment: sandbox?.open,
      });
    } finally {
      // One sandbox per check: the gate runs once a round.
      await sandbox?.dispose();
      sandbox = null;
    }
  };
  return async (candidate, parent) => {
    const report = await evaluate(candidate);
    storeEvalReport(db, candidate.id, gate.suite, report);
    const stored = latestEvalResult(db, parent?.id ?? null, gate.suite, report.n);
    let parentScore = stored ? storedScore(stored) : null;
    if (parentScore === null) {
      const parentReport = await evaluate(parent);
      storeEvalReport(db, parent?.id ?? null, gate.suite, parentReport);
      parentScore = suiteScore(parentReport);
    }
    const score = suiteScore(report);
    const decision = promotionGate(score, parentScore, gate.margin);
    return { promoted: decision.promoted, reason: decision.reason, details: { suite: gate.suite, n: report.n, score, parentScore, delta: decision.delta, margin: gate.margin } };
  };
}
