// What differs between runs' configs, as flat dotted keys (e.g. `memory.enabled`).

export interface ConfigDifference {
  key: string;
  /** The value per run, in the order the runs were given; undefined where a run lacks the key. */
  values: unknown[];
}

function flatten(value: unknown, prefix: string, into: Map<string, unknown>): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, into);
  } else {
    into.set(prefix, value);
  }
}

export function configDifferences(configs: readonly Record<string, unknown>[]): ConfigDifference[] {
  const flat = configs.map((config) => {
    const map = new Map<string, unknown>();
    flatten(config, "", map);
    return map;
  });
  const keys = new Set(flat.flatMap((map) => [...map.keys()]));
  const differences: ConfigDifference[] = [];
  for (const key of [...keys].sort()) {
    const values = flat.map((map) => map.get(key));
    const first = JSON.stringify(values[0]);
    if (values.some((value) => JSON.stringify(value) !== first)) differences.push({ key, values });
  }
  return differences;
}
