/** The names one environment's package uses, all derived from its class name. */
export interface PackageNames {
  /** Python package / folder name: `code_breaker` for `CodeBreakerEnv`. */
  name: string;
  /** Class-name prefix of the generated classes: `CodeBreaker`. */
  prefix: string;
  /** Python module of verifiers and GEM packages, the distribution name with underscores: `spade_code_breaker`. */
  module: string;
  /** Distribution name with dashes: `spade-code-breaker`. */
  envId: string;
  /** GEM registry id: `spade:CodeBreaker-v0`. */
  gemId: string;
  /** Readable title: `Code Breaker`. */
  title: string;
}

/**
 * Names for every environment of an export, unique within it: a class name seen before gets
 * `_2`, `_3`... (two runs can each have a `MazeEnv`).
 */
export function packageNames(classNames: readonly string[]): PackageNames[] {
  const used = new Map<string, number>();
  return classNames.map((className) => {
    const base = className.replace(/Env$/, "") || className;
    const words = base
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean);
    let name = words.map((word) => word.toLowerCase()).join("_") || "environment";
    if (/^[0-9]/.test(name)) name = `env_${name}`;
    const count = (used.get(name) ?? 0) + 1;
    used.set(name, count);
    if (count > 1) name = `${name}_${count}`;
    const prefix = name.split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
    return { name, prefix, module: `spade_${name}`, envId: `spade-${name.replace(/_/g, "-")}`, gemId: `spade:${prefix}-v0`, title: words.join(" ") || className };
  });
}
