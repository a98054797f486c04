// A workspace filled through the store's own query functions, as a scripted run would leave it:
// used by the e2e tests and the `ui` benchmark.
import type { ValidationReport } from "../../shared/environment.js";
import * as store from "../store/index.js";

export interface UiFixtureOptions {
  /** Environments in run 1 beyond the hand-made ones. Defaults to 0. */
  extraEnvironments?: number;
  /** Turns of the long episode. Defaults to 12. */
  longEpisodeTurns?: number;
}

export interface UiFixture {
  runIds: [number, number];
  /** A valid, played environment with hinted and unhinted plays. */
  envId: number;
  invalidEnvId: number;
  /** Unhinted play 0 of `envId`; its hinted counterpart is `hintedEpisodeId`. */
  episodeId: number;
  hintedEpisodeId: number;
  longEpisodeId: number;
  documentId: string;
  /** spade-it2, trained from spade-it1 (`parentAdapterId`). */
  adapterId: number;
  parentAdapterId: number;
  /** An environment set holding `envId`. */
  envSetName: string;
}

export const fixtureCode = `import random
import re


class GuessNumberEnv:
    """Guess a number between 1 and 10."""

    def __init__(self, max_turns=5, **kwargs):
        self.max_turns = max_turns
        self.target = 0
        self.turn = 0
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.target = rng.randint(1, 10)
        self.turn = 0
        return "Guess a number between 1 and 10. Answer as \\\\boxed{n}.", {}

    def step(self, action):
        self.turn += 1
        match = re.search(r"\\\\boxed\\{(\\d+)\\}", action)
        if not match:
            return "Write your guess as \\\\boxed{n}.", 0.0, False, self.turn >= self.max_turns, {}
        guess = int(match.group(1))
        if guess == self.target:
            return "Correct!", 1.0, True, False, {}
        hint = "higher" if guess < self.target else "lower"
        return f"Wrong, go {hint}.", 0.0, False, self.turn >= self.max_turns, {}

    def solution(self):
        return f"\\\\boxed{{{self.target}}}"

    def close(self):
        pass
`;

const brokenCode = `class BrokenEnv:
    def __init__(self, **kwargs):
        self.reset()

    def reset(self, seed=None):
        return None
`;

/** A stored report shaped like the validator's (main/validator: the same check names). */
function report(valid: boolean, className: string | null, failure?: { name: string; detail: string; line: number }): ValidationReport {
  const checks: ValidationReport["checks"] = [
    { name: "code_executes", ok: true, detail: "the code compiles and runs" },
    { name: "single_env_class", ok: className !== null, detail: className ? `found ${className}` : "no class" },
    { name: "constructs", ok: true, detail: `${className ?? "the class"}() was created` },
  ];
  if (failure) checks.push({ name: failure.name, ok: false, detail: failure.detail, line: failure.line });
  else checks.push({ name: "reset_42", ok: true, detail: "reset(seed=42) returned an observation and an info dict" }, { name: "step_probes", ok: true, detail: "step() answered the probes with well-typed 5-tuples" });
  return { valid, className, checks, error: failure ? failure.detail : null, durationMs: 42 };
}

function addEpisode(db: store.WritableDb, runId: number, envId: number, hinted: boolean, playIndex: number, turns: number, win: boolean): number {
  const list: store.NewTurn[] = [];
  for (let i = 0; i < turns; i++) {
    const last = i === turns - 1;
    list.push({
      messages: i === 0 ? [{ role: "system", content: "You play text games." }, { role: "user", content: `Guess a number between 1 and 10.${hinted ? "\n\nHINT: halve the range each time." : ""}` }] : null,
      rawReply: `<think>try ${i + 1}</think>\\boxed{${i + 1}}`,
      reasoning: `Turn ${i + 1}: I will try ${i + 1}.`,
      action: `\\boxed{${i + 1}}`,
      observation: last && win ? "Correct!" : `Wrong, go higher. (turn ${i + 1})`,
      reward: last && win ? 1 : 0,
      terminated: last && win,
      truncated: last && !win,
      latencyMs: 12,
      promptTokens: 40 + i,
      completionTokens: 8,
    });
  }
  return store.insertEpisodeWithTurns(db, { runId, environmentId: envId, hinted, playIndex, canary: false, seed: playIndex, firstObservation: `Guess a number between 1 and 10.${hinted ? "\n\nHINT: halve the range each time." : ""}`, return: win ? 1 : 0, totalTokens: turns * 48, adapter: null, error: null }, list);
}

export function buildUiFixture(path: string, options: UiFixtureOptions = {}): UiFixture {
  const db = store.openDatabase(path);
  try {
    const documentId = "wikitext:3";
    store.upsertDocument(db, { id: documentId, corpus: "wikitext-2/valid.txt", title: "Binary search", text: "Binary search halves the interval at every step ...", words: 9 });
    const configA = { db: "workspace.sqlite", seed: 1, iterations: 3, envsPerIteration: 2, plays: 2, hintPlays: 2, maxTurns: 25, backend: { kind: "llama", modelPath: "stories260K.gguf" }, corpus: { path: "valid.txt" }, memory: { enabled: true } };
    const runA = store.createRun(db, { name: "baseline", config: configA, seed: 1, status: "completed" });
    const runB = store.createRun(db, { name: "no memory", config: { ...configA, memory: { enabled: false } }, seed: 1, status: "paused" });
    for (const [run, shift] of [[runA, 0], [runB, 0.1]] as const) {
      for (let it = 0; it < 3; it++) {
        store.startIteration(db, run.id, it);
        store.putMetrics(db, run.id, it, { validityRate: 0.5 + it * 0.2 - shift, meanRegret: 0.05 * (it + 1) + shift, meanWinRate: 0.4 + it * 0.1, designerReward: 0.3 + it * 0.15, tokensPerEnv: 900 + it * 40, timePerEnvMs: 4000 - it * 300, noveltyRate: 0.9 - it * 0.1, winRateHistogram: [1, 0, 2, it, 1] });
        store.completeIteration(db, run.id, it);
      }
      store.setIterationsCompleted(db, run.id, 3);
    }

    const envId = store.insertEnvironment(db, { runId: runA.id, iteration: 0, slot: 0, attempt: 0, source: "designer", documentId, skill: "Logical Deduction", difficulty: "easy", code: fixtureCode, className: "GuessNumberEnv", valid: true, validation: report(true, "GuessNumberEnv"), novelty: "novel" });
    store.insertHint(db, { environmentId: envId, source: "writer", text: "Halve the range each time." });
    store.upsertEnvStats(db, { environmentId: envId, plays: 2, hintPlays: 2, winRate: 0.5, hintWinRate: 1, meanReturn: 0.5, hintMeanReturn: 1, regret: 0.5, designerReward: 0.82, rewardKind: "blend", stepTimeouts: 0 });
    store.addToMemory(db, { environmentId: envId, runId: runA.id, skill: "Logical Deduction", code: fixtureCode, winRate: 0.5, regret: 0.5, iteration: 0 });
    const invalidEnvId = store.insertEnvironment(db, { runId: runA.id, iteration: 0, slot: 1, attempt: 0, source: "designer", documentId, code: brokenCode, className: "BrokenEnv", valid: false, validation: report(false, "BrokenEnv", { name: "reset_42", detail: "reset(seed=42) returned None; expected (str, dict)", line: 6 }), validationError: "reset(seed=42) returned None; expected (str, dict)" });

    const episodeId = addEpisode(db, runA.id, envId, false, 0, 5, false);
    const hintedEpisodeId = addEpisode(db, runA.id, envId, true, 0, 3, true);
    addEpisode(db, runA.id, envId, false, 1, 4, true);
    addEpisode(db, runA.id, envId, true, 1, 2, true);
    const longEpisodeId = addEpisode(db, runA.id, envId, false, 2, options.longEpisodeTurns ?? 12, true);

    const extra = options.extraEnvironments ?? 0;
    store.transaction(db, () => {
      for (let i = 0; i < extra; i++) {
        const id = store.insertEnvironment(db, { runId: runA.id, iteration: 1 + (i % 2), slot: 100 + i, attempt: 0, source: "designer", code: `class Generated${i}Env:\n    pass\n`, className: `Generated${i}Env`, valid: i % 3 !== 0 });
        if (i % 3 !== 0) store.upsertEnvStats(db, { environmentId: id, plays: 8, hintPlays: 8, winRate: (i % 10) / 10, hintWinRate: Math.min(1, (i % 10) / 10 + 0.2), regret: 0.2, designerReward: 0.5 });
      }
    });
    const trained = { runId: runA.id, baseModelSha256: "270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d", trainerCommand: "python3 resources/trainers/train_lora.py --data {data} --base {base} --out {out}" };
    const firstAdapterId = store.insertAdapter(db, { ...trained, name: "spade-it1", path: "adapters/spade-it1.gguf", status: "promoted", manifest: { format: "trl-sft", counts: { lines: 48 } }, log: "step 10 loss 1.92\nstep 20 loss 1.41\n" });
    const adapterId = store.insertAdapter(db, { ...trained, name: "spade-it2", path: "adapters/spade-it2.gguf", parentId: firstAdapterId, status: "ready", manifest: { format: "trl-sft", counts: { lines: 96 } }, log: "step 10 loss 1.30\nstep 20 loss 1.12\n" });
    store.insertEvalResult(db, { adapterId: null, suite: "gsm8k-100", n: 100, correct: 31, accuracy: 0.31 });
    store.insertEvalResult(db, { adapterId: firstAdapterId, suite: "gsm8k-100", n: 100, correct: 33, accuracy: 0.33 });
    store.insertEvalResult(db, { adapterId, suite: "gsm8k-100", n: 100, correct: 36, accuracy: 0.36 });
    store.insertEvalResult(db, { adapterId: null, suite: "heldout-envs", n: 12, meanReturn: 0.3, winRate: 0.42 });
    store.insertEvalResult(db, { adapterId, suite: "heldout-envs", n: 12, meanReturn: 0.4, winRate: 0.5 });
    store.createEnvSet(db, "curated");
    store.addEnvSetMembers(db, "curated", [{ code: fixtureCode, source: `run:${runA.id}`, environmentId: envId, className: "GuessNumberEnv", hint: "Halve the range each time.", skill: "Logical Deduction", winRate: 0.5, hintWinRate: 1, regret: 0.5 }]);
    return { runIds: [runA.id, runB.id], envId, invalidEnvId, episodeId, hintedEpisodeId, longEpisodeId, documentId, adapterId, parentAdapterId: firstAdapterId, envSetName: "curated" };
  } finally {
    db.close();
  }
}
