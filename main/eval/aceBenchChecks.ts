/**
 * ACEBench's agent scoring, as its `eval_main.py` and `agent_checker` count: the end state is
 * right when the number of saved classes equals the possible answer's and every possible-answer
 * class with a same-named saved class has no wrong attribute (a possible-answer class no saved
 * class is named like is not checked, as in ACEBench); an attribute is wrong when the possible
 * answer lacks it, or (for an object value) lacks one of the possible answer's keys or differs in
 * one, or (otherwise) differs. Values compare as Python's `==` does (numbers and booleans by value).
 */
export function aceBenchStateErrors(groundTruth: readonly Record<string, Record<string, unknown>>[], state: readonly Record<string, Record<string, unknown>>[]): string[] {
  if (groundTruth.length !== state.length) return [`wrong number of classes: the possible answer has ${groundTruth.length}, the end state ${state.length}`];
  const errors: string[] = [];
  for (const expected of groundTruth) {
    const name = Object.keys(expected)[0]!;
    const saved = state.find((entry) => sameKeys(Object.keys(entry), Object.keys(expected)));
    if (!saved) continue;
    const answer = expected[name]!;
    for (const [attribute, value] of Object.entries(Object.values(saved)[0]!)) {
      if (!(attribute in answer)) {
        errors.push(`${name}.${attribute} is not in the possible answer`);
        continue;
      }
      const wanted = answer[attribute];
      if (isObject(wanted)) {
        for (const [key, inner] of Object.entries(wanted)) {
          const actual = isObject(value) ? value[key] : undefined;
          if (!isObject(value) || !(key in value)) errors.push(`${name}.${attribute}: missing ${key} (expected ${JSON.stringify(wanted)}, got ${JSON.stringify(value)})`);
          else if (!pythonEquals(inner, actual)) errors.push(`${name}.${attribute}.${key}: expected ${JSON.stringify(inner)}, got ${JSON.stringify(actual)}`);
        }
      } else if (!pythonEquals(wanted, value)) errors.push(`${name}.${attribute}: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(value)}`);
    }
  }
  return errors;
}

/**
 * ACEBench's process accuracy of one item: 1 when the end state is right; else the share of the
 * milestones found in order (each matched at or after the previous match, compared stripped)
 * among the agent's executed replies; with several alternative milestone lists, the best,
 * rounded to 3 places. An empty milestone list scores 1.
 */
export function aceBenchProcessAccuracy(mileStone: readonly string[] | readonly string[][], calls: readonly string[], correct: boolean): number {
  if (correct) return 1;
  if (mileStone.length > 0 && Array.isArray(mileStone[0])) return Math.max(...(mileStone as string[][]).map((one) => round3(inOrderShare(one, calls))));
  return inOrderShare(mileStone as string[], calls);
}

function inOrderShare(stones: readonly string[], calls: readonly string[]): number {
  if (stones.length === 0) return 1;
  let at = 0;
  let found = 0;
  for (const stone of stones) {
    while (at < calls.length) {
      const hit = calls[at]!.trim() === stone.trim();
      at++;
      if (hit) {
        found++;
        break;
      }
    }
  }
  return found / stones.length;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key) => b.includes(key));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Python's `==` on JSON values: numbers and booleans by value (True == 1), lists in order, objects by keys. */
export function pythonEquals(a: unknown, b: unknown): boolean {
  const scalar = (v: unknown) => (typeof v === "boolean" ? Number(v) : v);
  if ((typeof a === "number" || typeof a === "boolean") && (typeof b === "number" || typeof b === "boolean")) return scalar(a) === scalar(b);
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => pythonEquals(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return sameKeys(keys, Object.keys(b)) && keys.every((key) => pythonEquals(a[key], b[key]));
  }
  return a === b;
}
