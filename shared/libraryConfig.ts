import * as z from "zod";
import { InputError } from "./validation/InputError.js";
import { expecting, int, num, oneOf, strict, text, textList } from "./validation/schema.js";

/**
 * Environment libraries a researcher installs (trusted Python, not generated code): RLVE's
 * procedurally generated problems (the paper's strongest fixed-environment baseline), GEM's games
 * and reasoning-gym's datasets. They run in a Python process of the user's interpreter, not in
 * the sandbox.
 */
export const libraryKinds = ["rlve", "gem", "reasoning-gym"] as const;
export type LibraryKind = (typeof libraryKinds)[number];

/** RLVE's sliding-window difficulty controller (the reference's default variant, `difficulty_controller.py`). */
export interface SlidingWindowConfig {
  /** Accuracy at the window's top difficulty that promotes it. Defaults to 0.9 (the launchers' `--spade-difficulty-tau-acc`). */
  tauAcc: number;
  /** Plays at the top difficulty before each promotion check. Defaults to 128 (`--spade-difficulty-tau-num`). */
  tauNum: number;
  /** Width of the window [low, high] of difficulties a problem is drawn from. Defaults to 4 (`--spade-difficulty-d-delta`). */
  dDelta: number;
  /** The highest difficulty. Defaults to 20. */
  maxDifficulty: number;
}

export interface LibraryConfig {
  kind: LibraryKind;
  /** Where the library is: RLVE's `Gym` folder; for GEM and reasoning-gym a folder put on the import path (null: installed in the interpreter). Relative to the config file. */
  path: string | null;
  /** Which environments: RLVE's "official16" (the launchers' default) or "all", or a list of names (GEM ids, reasoning-gym dataset names). Defaults to "official16" for RLVE; GEM and reasoning-gym need a list. */
  set: "official16" | "all" | string[];
  /** RLVE only: the difficulty controller. Defaults to the reference launchers' values. */
  controller: SlidingWindowConfig;
  /** The interpreter the library runs in. Defaults to the trainer's (training.python, SPADE_PYTHON, ... as the README lists). */
  python: string | null;
  /** Address-space limit of each library worker, in MiB (its calls fail with out of memory above it). Defaults to 4096. */
  memoryMb: number;
  /** Deadline for starting a worker and loading the library, in ms. Defaults to 120000. */
  loadTimeoutMs: number;
}

export const slidingWindowDefaults: SlidingWindowConfig = { tauAcc: 0.9, tauNum: 128, dDelta: 4, maxDifficulty: 20 };

const librarySet = expecting(z.union([oneOf(["official16", "all"]), textList()]), '"official16", "all" or a non-empty list of environment names');

export const librarySchema = strict({
  kind: oneOf(libraryKinds).describe('The library: "rlve", "gem" or "reasoning-gym".'),
  path: text({ nonEmpty: true }).nullish().describe("RLVE's Gym folder, or a folder to import GEM / reasoning-gym from. Relative to the config file."),
  set: librarySet.optional().describe('RLVE: "official16" (default) or "all"; or a list of environment names.'),
  controller: strict({
    tauAcc: num(0, 1).optional().describe("Defaults to 0.9."),
    tauNum: int(1).optional().describe("Defaults to 128."),
    dDelta: int(1).optional().describe("Defaults to 4."),
    maxDifficulty: int(0).optional().describe("Defaults to 20."),
  }).nullish(),
  python: text({ nonEmpty: true }).nullish().describe("The interpreter. Defaults to the trainer's."),
  memoryMb: int(256).optional().describe("Defaults to 4096."),
  loadTimeoutMs: int(1000).optional().describe("Defaults to 120000."),
});

/** The library block with its defaults; `where` names the config file in errors. */
export function fillLibrary(o: z.output<typeof librarySchema>, where: string): LibraryConfig {
  const set = o.set ?? (o.kind === "rlve" ? "official16" : null);
  if (set === null || (o.kind !== "rlve" && !Array.isArray(set))) {
    throw new InputError(`${where}: designer.library.set: expected a list of ${o.kind === "gem" ? "GEM environment ids" : "reasoning-gym dataset names"}, got ${JSON.stringify(o.set ?? null)}`);
  }
  if (o.kind === "rlve" && (o.path ?? null) === null) throw new InputError(`${where}: designer.library.path: required for RLVE (its Gym folder)`);
  return {
    kind: o.kind,
    path: o.path ?? null,
    set,
    controller: { ...slidingWindowDefaults, ...Object.fromEntries(Object.entries(o.controller ?? {}).filter(([, v]) => v !== undefined)) },
    python: o.python ?? null,
    memoryMb: o.memoryMb ?? 4096,
    loadTimeoutMs: o.loadTimeoutMs ?? 120_000,
  };
}
