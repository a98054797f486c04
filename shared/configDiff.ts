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
