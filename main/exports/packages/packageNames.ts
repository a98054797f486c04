import { reservedPythonNames } from "./reservedPythonNames.js";

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

/** A name the rule produced that is not what it promises: a bug in the rule, never written out. */
export class UnsafePackageNameError extends Error {
  override readonly name = "UnsafePackageNameError";
}

/** The longest package name: a folder, a module and part of every file name below it. */
const MAX_NAME = 40;

/** What each derived name must match: ASCII identifiers, ids and words, nothing a template could read as code. */
const SHAPES: Record<keyof PackageNames, RegExp> = {
  name: /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/,
  prefix: /^[A-Z][A-Za-z0-9]*$/,
  module: /^spade_[a-z0-9_]+$/,
  envId: /^spade-[a-z0-9-]+$/,
  gemId: /^spade:[A-Z][A-Za-z0-9]*-v0$/,
  title: /^[A-Za-z0-9]+(?: [A-Za-z0-9]+)*$/,
};

/**
 * Names for every environment of an export, unique within it (a class name seen before gets `_2`,
 * `_3`...: two runs can each have a `MazeEnv`).
 *
 * The class name is environment text (`__name__` can be set to anything), so it never reaches a
 * generated file as it is: only its ASCII letters and digits are kept, as lower-case words joined
 * by `_`. A word starting with `env` is joined to the one before it without `_`, because OpenEnv's
 * discovery (openenv/auto/_discovery.py `_infer_class_name`) deletes every `_env` of the name
 * before it derives the client class `<Pascal>Env`; `prefix` is that Pascal form, so the classes
 * written are the ones AutoEnv looks for. A name starting with a digit gets `env_` before it; a
 * Python keyword or a standard-library or imported module name gets `_game` after it; nothing at
 * all becomes `environment`. Every result is checked against its shape before it is returned.
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
    let name = identifierOf(words);
    const count = (used.get(name) ?? 0) + 1;
    used.set(name, count);
    if (count > 1) name = `${name}_${count}`;
    const prefix = name.split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
    const title = words.join(" ").slice(0, 80).trim() || "Environment";
    return checked({ name, prefix, module: `spade_${name}`, envId: `spade-${name.replace(/_/g, "-")}`, gemId: `spade:${prefix}-v0`, title });
  });
}

function identifierOf(words: readonly string[]): string {
  const parts: string[] = [];
  for (const word of words.map((w) => w.toLowerCase())) {
    if (parts.length > 0 && word.startsWith("env")) parts[parts.length - 1] += word;
    else parts.push(word);
  }
  let name = parts.join("_").slice(0, MAX_NAME).replace(/_+$/, "") || "environment";
  if (/^[0-9]/.test(name)) name = `env_${name}`;
  if (reservedPythonNames.has(name)) name = `${name}_game`;
  return name;
}

function checked(names: PackageNames): PackageNames {
  for (const key of Object.keys(SHAPES) as Array<keyof PackageNames>) {
    if (!SHAPES[key].test(names[key])) throw new UnsafePackageNameError(`package ${key} ${JSON.stringify(names[key])} is not of the shape ${SHAPES[key].source}`);
  }
  return names;
}
