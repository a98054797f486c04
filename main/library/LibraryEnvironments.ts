import type { ValidationReport } from "../../shared/environment.js";
import type { RunConfig } from "../../shared/runConfig.js";
import type { ReadonlyDb } from "../store/DatabaseHandle.js";
import { listLibraryPlays } from "../store/queries/libraryPlays.js";
import { deriveSeed, seededRandom } from "../util/seededRandom.js";
import type { LibraryHost } from "./LibraryHost.js";
import { formatLibraryProblem, parseLibraryProblem } from "./LibraryProblem.js";
import { SlidingWindowController } from "./SlidingWindowController.js";

/** What a slot of a library run gets: the problem as stored code, and whether it could be drawn. */
export interface DrawnLibraryEnvironment {
  code: string | null;
  skill: string;
  validation: ValidationReport;
}

/**
 * The library baseline's side of the schedule, as the reference's fixed-environment orchestrator
 * runs it: each regeneration, every slot takes one environment of the set (all of them when the
 * set is no larger than the rollout, else a seeded sample), a difficulty drawn from the
 * environment's sliding window (RLVE), and one problem the slot's plays share. The controller is
 * updated with every finished unhinted play of a rollout once the rollout is over, in a fixed
 * order (rollout, slot, play), and rebuilt from the store after a resume: a killed run draws
 * the problems an uninterrupted one would.
 */
export class LibraryEnvironments {
  private readonly controller: SlidingWindowController;
  /** Rollouts [0, throughRollout) are in the controller. */
  private throughRollout = 0;

  constructor(
    private readonly db: ReadonlyDb,
    private readonly runId: number,
    private readonly config: RunConfig,
    private readonly host: LibraryHost,
  ) {
    this.controller = new SlidingWindowController(config.designer.library!.controller);
  }

  /** The environment, difficulty and problem of a slot in the regeneration `rollout`. */
  async draw(rollout: number, slot: number): Promise<DrawnLibraryEnvironment> {
    const library = this.config.designer.library!;
    const name = this.environmentOf(rollout, slot);
    this.catchUp(rollout);
    const difficulty = library.kind === "rlve" ? this.controller.sample(name, seededRandom(this.config.seed, "library difficulty", rollout, slot)()) : 0;
    const started = Date.now();
    const skill = `${library.kind}:${name}`;
    try {
      const problem = await this.host.problem(name, difficulty, deriveSeed(this.config.seed, "library problem", rollout, slot));
      const check = { name: "library_problem", ok: true, detail: `${name} at difficulty ${problem.difficulty}` };
      return { code: formatLibraryProblem(problem), skill, validation: { valid: true, className: name, checks: [check], error: null, durationMs: Date.now() - started } };
    } catch (error) {
      const detail = `${name} at difficulty ${difficulty}: ${(error as Error).message}`;
      return { code: null, skill, validation: { valid: false, className: name, checks: [{ name: "library_problem", ok: false, detail }], error: detail, durationMs: Date.now() - started } };
    }
  }

  /** The current window of an environment (after the rollouts the controller has taken in). */
  window(name: string) {
    return this.controller.window(name);
  }

  /** Which environment a slot plays: the set in order when it fits the rollout, else a seeded sample without repeats. */
  environmentOf(rollout: number, slot: number): string {
    const names = this.host.environments;
    if (names.length <= this.config.envsPerIteration) return names[slot % names.length]!;
    const order = [...names];
    const random = seededRandom(this.config.seed, "library environments", rollout);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    return order[slot]!;
  }

  /** Feeds the plays of rollouts before `rollout` to the controller (once each). */
  private catchUp(rollout: number): void {
    if (rollout <= this.throughRollout) return;
    for (const play of listLibraryPlays(this.db, this.runId, this.throughRollout, rollout)) {
      const problem = parseLibraryProblem(play.code);
      if (problem) this.controller.update(problem.name, problem.difficulty, play.return);
    }
    this.throughRollout = rollout;
  }
}
