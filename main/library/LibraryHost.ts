import type { LibraryConfig } from "../../shared/libraryConfig.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import { LibraryLoadError } from "./LibraryLoadError.js";
import type { LibraryProblem } from "./LibraryProblem.js";
import { LibrarySession } from "./LibrarySession.js";
import { LibraryWorker } from "./LibraryWorker.js";

export interface LibraryHostOptions {
  library: LibraryConfig;
  /** The interpreter (the library's own `python`, else the trainer's). */
  python: string;
  /** Deadline of one `problem` draw, in ms. Defaults to 60000. */
  problemTimeoutMs?: number;
  /** The worker script. Defaults to resources/python/spade_library.py. */
  script?: string;
}

export interface LibraryOpenOptions {
  /** Deadline of each call of the session, in ms. Defaults to 30000. */
  stepTimeoutMs?: number;
}

/**
 * Environments of an installed library, the second implementation of the interface the loop plays
 * through (open, reset, step, close): a catalog worker loads the library and draws problems, and
 * every open takes a loaded worker (an idle one, else a new one) for the session. A worker that
 * crashed or ran past a deadline is not reused; the next open starts a fresh one.
 */
export class LibraryHost {
  private readonly idle: LibraryWorker[] = [];
  private readonly all = new Set<LibraryWorker>();
  private disposed = false;

  private constructor(
    private readonly options: LibraryHostOptions,
    private catalog: LibraryWorker,
    /** The environments of the configured set, in the library's order. */
    readonly environments: string[],
  ) {}

  /** Starts the catalog worker and loads the library; a missing library or dependency is a LibraryLoadError naming it. */
  static async start(options: LibraryHostOptions): Promise<LibraryHost> {
    const { catalog, environments } = await LibraryHost.loadedWorker(options);
    if (environments.length === 0) {
      catalog.kill();
      throw new LibraryLoadError(options.library, "the set has no environments");
    }
    return new LibraryHost(options, catalog, environments);
  }

  private static async loadedWorker(options: LibraryHostOptions): Promise<{ catalog: LibraryWorker; environments: string[] }> {
    const { library, python } = options;
    let worker: LibraryWorker;
    try {
      worker = await LibraryWorker.start({ python, memoryMb: library.memoryMb, startTimeoutMs: library.loadTimeoutMs, ...(options.script ? { script: options.script } : {}) });
    } catch (error) {
      throw new LibraryLoadError(library, `its worker did not start with ${python}: ${(error as Error).message}`);
    }
    try {
      const answer = await worker.call("load", { kind: library.kind, path: library.path, set: library.set }, library.loadTimeoutMs);
      return { catalog: worker, environments: (answer.environments as string[]) ?? [] };
    } catch (error) {
      worker.kill();
      throw new LibraryLoadError(library, `${(error as Error & { exception?: string }).exception ?? (error as Error).message} (interpreter ${python})`);
    }
  }

  /** Draws one problem of an environment at a difficulty, from the run's seed; the library's error if it cannot. */
  async problem(name: string, difficulty: number, seed: number): Promise<LibraryProblem> {
    if (!this.catalog.alive) this.catalog = (await LibraryHost.loadedWorker(this.options)).catalog;
    const answer = await this.catalog.call("problem", { name, difficulty, seed }, this.options.problemTimeoutMs ?? 60_000);
    return { library: this.options.library.kind, ...(answer.problem as Omit<LibraryProblem, "library">) };
  }

  /** A session on one problem; the worker is held until the session closes. */
  async open(problem: LibraryProblem, options: LibraryOpenOptions = {}): Promise<EnvSession> {
    if (this.disposed) throw new Error("the library host is disposed");
    const stepTimeoutMs = options.stepTimeoutMs ?? 30_000;
    const worker = await this.take();
    try {
      await worker.call("open", { problem }, stepTimeoutMs);
    } catch (error) {
      this.give(worker);
      throw error;
    }
    // RLVE's problems are single questions, framed as the reference's fixed-environment template frames them.
    return new LibrarySession(problem.name, problem.library === "rlve" ? "problem" : "game", worker, stepTimeoutMs, (w) => this.give(w));
  }

  /** Workers alive now (the catalog included). */
  get workers(): number {
    return this.all.size + (this.catalog.alive ? 1 : 0);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const worker of this.all) worker.kill();
    this.all.clear();
    this.idle.length = 0;
    this.catalog.kill();
  }

  private async take(): Promise<LibraryWorker> {
    while (this.idle.length > 0) {
      const worker = this.idle.pop()!;
      if (worker.alive) return worker;
      this.all.delete(worker);
    }
    const { catalog: worker } = await LibraryHost.loadedWorker(this.options);
    this.all.add(worker);
    return worker;
  }

  private give(worker: LibraryWorker): void {
    if (this.disposed || !worker.alive) {
      worker.kill();
      this.all.delete(worker);
      return;
    }
    this.idle.push(worker);
  }
}
