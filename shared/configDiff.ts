/** A config key whose value differs between runs, with each run's value (undefined: not set). */
export interface ConfigDifference {
  key: string;
  values: unknown[];
}

function flatten(value: unknown, prefix: string, into: Map<string, unknown>): void {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) flatten(child, prefix ? `${prefix}.${key}` : key, into);
  } else {
    into.set(prefix, value);
  }
}

/** The dotted keys (e.g. `reward.kind`) whose values are not the same in every config. */
export function diffConfigs(configs: readonly unknown[]): ConfigDifference[] {
  const flat = configs.map((config) => {
    const map = new Map<string, unknown>();
    flatten(config, "", map);
    return map;
  });
  const keys = [...new Set(flat.flatMap((map) => [...map.keys()]))].sort();
  return keys
    .map((key) => ({ key, values: flat.map((map) => map.get(key)) }))
    .filter(({ values }) => values.some((value) => JSON.stringify(value) !== JSON.stringify(values[0])));
}

/**
 * Keys a resumed run may change (`spade run --resume --force-config`): they decide how the rest of
 * the run is computed, not what the stored iterations mean. A key is safe when it equals one of
 * these or lies below one (`backend` covers `backend.contextSize`, `backend.modelPath`, ...).
 * - `name`: a label.
 * - `iterations`: more (or fewer) iterations to go; the completed ones stay as they are.
 * - `backend`: the model, its context size, threads, GPU, adapters, server URL and time-outs.
 * - `designer.maxTokens`, `agent.maxTokens`, `hint.maxTokens`: token budgets of later calls.
 * - `sandbox.stepTimeoutMs`, `sandbox.validationTimeoutMs`: time limits of later calls;
 *   `sandbox.processes`, `sandbox.playsPerProcess`: how many sandbox processes run them and how
 *   many plays share one, `sandbox.recycleProcesses`: whether a process serves another game after
 *   a reset to its pristine state (a play's transcript is the same either way).
 * - `trainer`: what `spade train` does with the run afterwards.
 */
export const resumeSafeKeys = [
  "name",
  "iterations",
  "backend",
  "designer.maxTokens",
  "agent.maxTokens",
  "hint.maxTokens",
  "sandbox.stepTimeoutMs",
  "sandbox.validationTimeoutMs",
  "sandbox.processes",
  "sandbox.playsPerProcess",
  "sandbox.recycleProcesses",
  "trainer",
] as const;

/**
 * Keys a resumed run must keep, because results already stored were computed with them: the seed
 * (every draw derives from it), the schedule (`envsPerIteration`, `plays`, `hintPlays`,
 * `maxTurns`, `canary`), the designer's skills, difficulties, attempts and set, the reward, memory,
 * corpus and sampling temperatures. Any key not listed in `resumeSafeKeys` (including keys added
 * by later versions) is refused like these: unknown means unsafe.
 */
export const resumeFixedKeyExamples = ["seed", "envsPerIteration", "plays", "hintPlays", "maxTurns", "canary", "designer.skills", "designer.attempts", "reward.kind", "memory.enabled", "corpus.path"] as const;

/** One config key that differs between a stored run and the config given to `--resume`. */
export interface ResumeChange {
  key: string;
  stored: unknown;
  given: unknown;
}

/** The differences between a run's stored config and the one given to `--resume`, split by whether they may change. */
export interface ResumeChanges {
  /** May change with `--force-config`. */
  safe: ResumeChange[];
  /** Would change what the stored results mean: refused. */
  refused: ResumeChange[];
}

/** Whether `key` (dotted) may change when a run is resumed: see `resumeSafeKeys`. */
export function isResumeSafeKey(key: string): boolean {
  return resumeSafeKeys.some((safe) => key === safe || key.startsWith(`${safe}.`));
}

/**
 * Classifies the keys whose values differ between `stored` and `given` (keys in `ignore`, and keys
 * below them, are left out: e.g. `backend.lora`, which `--adapter` changes on purpose).
 */
export function classifyResumeChanges(stored: unknown, given: unknown, ignore: readonly string[] = []): ResumeChanges {
  const changes = diffConfigs([stored, given])
    .filter(({ key }) => !ignore.some((ignored) => key === ignored || key.startsWith(`${ignored}.`)))
    .map(({ key, values }) => ({ key, stored: values[0], given: values[1] }));
  return { safe: changes.filter((change) => isResumeSafeKey(change.key)), refused: changes.filter((change) => !isResumeSafeKey(change.key)) };
}

/** `key (stored → given)` for messages. */
export function describeResumeChange(change: ResumeChange): string {
  const show = (value: unknown) => (value === undefined ? "unset" : JSON.stringify(value));
  return `${change.key} (${show(change.stored)} → ${show(change.given)})`;
}
