// The engine behind the workbench: the API contract implemented over one workspace database,
// plus the event hub both transports forward. Transports call `dispatchCall(workbench.api, ...)`.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { EnvironmentFilter } from "../../shared/api/environmentTypes.js";
import type { WorkbenchEvent } from "../../shared/api/events.js";
import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";
import type { WorkbenchApi, WorkbenchInfo } from "../../shared/api/WorkbenchApi.js";
import { appRoot } from "../paths.js";
import * as store from "../store/index.js";
import { countDocuments, environmentCountsByRun, removeFromMemory } from "../store/queries/uiQueries.js";
import { loadEnvironmentRuntime, loadRunControl, type EnvironmentRuntime, type RunControl } from "./EngineParts.js";
import { EventHub } from "./EventHub.js";
import { NotFoundError } from "./NotFoundError.js";
import { PlaySessions } from "./PlaySessions.js";
import * as views from "./toViews.js";
import { toWorkbenchEvent } from "./toWorkbenchEvent.js";
import { UnavailableError } from "./UnavailableError.js";

export interface WorkbenchOptions {
  /** The workspace database file (created when missing). */
  dbPath: string;
  /** Shown in settings. Defaults to "browser". */
  shell?: "electron" | "browser";
  /** Where local GGUF models are listed from. Defaults to SPADE_MODELS_DIR, else `models/` beside the workspace. */
  modelsDir?: string;
  /**
   * The sandbox + validator. Defaults to the engine's own (loaded on first use); null disables
   * validation and manual play.
   */
  runtime?: EnvironmentRuntime | null;
  /** The self-play run controller. Defaults to the engine's own when built in; null disables run control. */
  runControl?: RunControl | null;
}

const orderMap: Record<NonNullable<EnvironmentFilter["order"]>, { orderBy: store.EnvironmentOrder; descending: boolean }> = {
  oldest: { orderBy: "id", descending: false },
  newest: { orderBy: "id", descending: true },
  regret: { orderBy: "regret", descending: true },
  winRate: { orderBy: "winRate", descending: true },
  designerReward: { orderBy: "designerReward", descending: true },
};

function storeFilter(filter: EnvironmentFilter): store.EnvironmentFilter {
  const order = orderMap[filter.order ?? "oldest"];
  return {
    runId: filter.runId,
    iteration: filter.iteration,
    valid: filter.valid,
    regretMin: filter.regretMin,
    regretMax: filter.regretMax,
    winRateMin: filter.winRateMin,
    winRateMax: filter.winRateMax,
    search: filter.text,
    ...order,
  };
}

/** Relative model and corpus paths in a config from the UI are relative to the workspace folder. */
function resolveRunPaths(config: RunConfig, base: string): RunConfig {
  const backend = config.backend.kind === "llama" ? { ...config.backend, modelPath: resolve(base, config.backend.modelPath) } : config.backend;
  return { ...config, backend, corpus: config.corpus ? { ...config.corpus, path: resolve(base, config.corpus.path) } : null };
}

function readVersion(): string {
  try {
    return String((JSON.parse(readFileSync(join(appRoot(), "package.json"), "utf8")) as { version?: unknown }).version ?? "unknown");
  } catch {
    return "unknown";
  }
}

export class Workbench {
  readonly events = new EventHub();
  readonly api: WorkbenchApi;
  readonly db: store.WritableDb;
  readonly #options: WorkbenchOptions;
  readonly #plays = new PlaySessions();
  #runtime: Promise<EnvironmentRuntime | null> | null = null;
  #runControl: Promise<RunControl | null> | null = null;

  private constructor(db: store.WritableDb, options: WorkbenchOptions) {
    this.db = db;
    this.#options = options;
    if (options.runtime !== undefined) this.#runtime = Promise.resolve(options.runtime);
    if (options.runControl !== undefined) this.#runControl = Promise.resolve(options.runControl ? this.#wire(options.runControl) : null);
    this.api = this.#createApi();
  }

  /** Opens (creating and migrating when needed) the workspace and builds the API over it. */
  static open(options: WorkbenchOptions): Workbench {
    return new Workbench(store.openDatabase(options.dbPath), options);
  }

  /** Sends an event to every listening transport. */
  emit(event: WorkbenchEvent): void {
    this.events.emit(event);
  }

  async close(): Promise<void> {
    await this.#plays.closeAll();
    const runtime = await this.#runtime;
    await runtime?.dispose();
    this.db.close();
  }

  #wire(control: RunControl): RunControl {
    control.on((loopEvent) => {
      const event = toWorkbenchEvent(loopEvent);
      if (event) this.emit(event);
    });
    return control;
  }

  async #requireRuntime(what: string): Promise<EnvironmentRuntime> {
    this.#runtime ??= loadEnvironmentRuntime();
    const runtime = await this.#runtime;
    if (!runtime) throw new UnavailableError(`${what} needs the environment sandbox, which this build does not include`);
    return runtime;
  }

  async #requireRunControl(): Promise<RunControl> {
    this.#runControl ??= loadRunControl(this.db).then((control) => (control ? this.#wire(control) : null));
    const control = await this.#runControl;
    if (!control) throw new UnavailableError("run control needs the self-play loop, which this build does not include");
    return control;
  }

  #environment(envId: number): store.Environment {
    const env = store.getEnvironment(this.db, envId);
    if (!env) throw new NotFoundError(`no environment ${envId}`);
    return env;
  }

  #runSummary(run: store.Run, counts?: { total: number; valid: number }) {
    const total = counts?.total ?? store.countEnvironments(this.db, { runId: run.id });
    const valid = counts?.valid ?? store.countEnvironments(this.db, { runId: run.id, valid: true });
    return views.toRunSummary(run, total, valid);
  }

  #createApi(): WorkbenchApi {
    const db = this.db;
    const modelsDir = this.#options.modelsDir ?? process.env.SPADE_MODELS_DIR ?? join(dirname(this.#options.dbPath), "models");
    return {
      getInfo: async () => {
        const runtime = await (this.#runtime ??= loadEnvironmentRuntime().catch(() => null));
        const control = await (this.#runControl ??= loadRunControl(this.db)
          .then((c) => (c ? this.#wire(c) : null))
          .catch(() => null));
        const info: WorkbenchInfo = {
          version: readVersion(),
          workspacePath: this.#options.dbPath,
          shell: this.#options.shell ?? "browser",
          validation: runtime !== null,
          play: runtime !== null,
          runControl: control !== null,
        };
        return info;
      },
      listRuns: async () => {
        const counts = environmentCountsByRun(db);
        return store
          .listRuns(db)
          .map((run) => this.#runSummary(run, counts.get(run.id) ?? { total: 0, valid: 0 }))
          .sort((a, b) => b.id - a.id);
      },
      getRun: async ({ runId }) => {
        const run = store.getRun(db, runId);
        if (!run) throw new NotFoundError(`no run ${runId}`);
        return views.toRunDetail(this.#runSummary(run), run);
      },
      getRunMetrics: async ({ runId }) => {
        if (!store.getRun(db, runId)) throw new NotFoundError(`no run ${runId}`);
        return { runId, iterations: store.getMetrics(db, runId).map(views.toIterationMetrics) };
      },
      listEnvironments: async (filter) => {
        const base = storeFilter(filter);
        const offset = filter.offset ?? 0;
        const rows = store.listEnvironments(db, { ...base, offset, limit: filter.limit ?? 100 });
        return { total: store.countEnvironments(db, base), offset, items: rows.map((row) => views.toEnvironmentListItem(row, row)) };
      },
      getEnvironment: async ({ envId }) => {
        const env = this.#environment(envId);
        const stats = store.getEnvStats(db, envId);
        const hint = store.getHint(db, envId);
        const memory = store.getMemoryEntry(db, envId);
        return {
          ...views.toEnvironmentListItem(env, stats),
          parentId: env.parentId,
          documentId: env.documentId,
          skill: env.skill,
          difficulty: env.difficulty,
          code: env.code ?? "",
          validation: env.validation,
          hint: hint ? { source: hint.source === "env" ? "env" : "writer", text: hint.text } : null,
          stats: stats ? views.toEnvironmentStats(stats) : null,
          memory: memory ? views.toMemoryFlags(memory) : null,
          childIds: store.listChildEnvironments(db, envId).map((child) => child.id),
          episodes: store.listEpisodes(db, envId).map(views.toEpisodeSummary),
        };
      },
      validateCode: async ({ code }) => (await this.#requireRuntime("validation")).validate(code),
      saveEnvironmentVersion: async ({ parentId, code }) => {
        const parent = this.#environment(parentId);
        const validation = await (await this.#requireRuntime("saving a version")).validate(code);
        const envId = store.transaction(db, () => {
          const id = store.insertEnvironment(db, {
            source: "edit",
            code,
            valid: validation.valid,
            parentId,
            runId: null,
            documentId: parent.documentId,
            skill: parent.skill,
            difficulty: parent.difficulty,
            className: validation.className,
            validation,
            validationError: validation.error,
          });
          const hint = store.getHint(db, parentId);
          if (hint) store.insertHint(db, { environmentId: id, source: "edit", text: hint.text });
          return id;
        });
        this.emit({ type: "environmentAdded", runId: null, environmentId: envId, iteration: null, valid: validation.valid });
        return { envId, validation };
      },
      startPlay: async ({ envId, seed }) => {
        const env = this.#environment(envId);
        if (!env.code) throw new NotFoundError(`environment ${envId} has no code to play`);
        const session = await (await this.#requireRuntime("manual play")).open(env.code);
        return this.#plays.start(session, seed ?? 0);
      },
      playStep: async ({ sessionId, action }) => this.#plays.step(sessionId, action),
      endPlay: async ({ sessionId }) => ({ closed: await this.#plays.end(sessionId) }),
      setMemoryFlags: async ({ envId, pinned, banned, inMemory }) => {
        const env = this.#environment(envId);
        const add = () => {
          if (!env.valid) throw new NotFoundError(`environment ${envId} is not valid: only valid environments enter memory`);
          const stats = store.getEnvStats(db, envId);
          store.addToMemory(db, { environmentId: envId, runId: env.runId, skill: env.skill, code: env.code, winRate: stats?.winRate, regret: stats?.regret, iteration: env.iteration });
        };
        store.transaction(db, () => {
          if (banned !== undefined) store.setBanned(db, envId, banned);
          if (inMemory === true) add();
          if (inMemory === false) removeFromMemory(db, envId);
          if (pinned !== undefined) {
            if (pinned && !store.getMemoryEntry(db, envId)) add();
            store.setPinned(db, envId, pinned);
          }
        });
        const entry = store.getMemoryEntry(db, envId);
        return entry ? views.toMemoryFlags(entry) : { pinned: false, banned: false, inMemory: false };
      },
      getEpisode: async ({ episodeId }) => {
        const episode = store.getEpisode(db, episodeId);
        if (!episode) throw new NotFoundError(`no episode ${episodeId}`);
        const counterpart = store.findEpisode(db, episode.environmentId, !episode.hinted, episode.playIndex, episode.canary);
        return { ...views.toEpisodeSummary(episode), counterpartId: counterpart?.id ?? null, firstObservation: episode.firstObservation, className: store.getEnvironment(db, episode.environmentId)?.className ?? null };
      },
      getTurns: async ({ episodeId, offset = 0, limit = 200, messages = false }) => {
        const episode = store.getEpisode(db, episodeId);
        if (!episode) throw new NotFoundError(`no episode ${episodeId}`);
        const turns = store.getTurns(db, episodeId, { offset, limit, messages }).map(views.toTurnView);
        return { episodeId, total: episode.turnCount, offset, turns };
      },
      listDocuments: async ({ text, offset = 0, limit = 100 }) => {
        const items = store.listDocuments(db, { search: text, offset, limit });
        return { total: countDocuments(db, text), offset, items: items.map((d) => ({ id: d.id, corpus: d.corpus, title: d.title, words: d.words, environments: d.environments })) };
      },
      getDocument: async ({ documentId }) => {
        const doc = store.getDocument(db, documentId);
        if (!doc) throw new NotFoundError(`no document ${JSON.stringify(documentId)}`);
        const envs = store.listEnvironments(db, { documentId, limit: 500 });
        return { id: doc.id, corpus: doc.corpus, title: doc.title, words: doc.words, text: doc.text, environments: envs.length, environmentList: envs.map((e) => views.toEnvironmentListItem(e, e)) };
      },
      listModels: async () => {
        let names: string[];
        try {
          names = readdirSync(modelsDir).filter((name) => name.toLowerCase().endsWith(".gguf"));
        } catch {
          names = []; // no models folder yet
        }
        const files = names.sort().map((name) => {
          const path = join(modelsDir, name);
          return { name, path, bytes: statSync(path).size };
        });
        return { dir: modelsDir, files };
      },
      listAdapters: async ({ runId }) => store.listAdapters(db, runId).map(views.toAdapterView),
      listEvalResults: async ({ adapterId }) => store.listEvalResults(db, adapterId === undefined ? {} : { adapterId }).map(views.toEvalResultView),
      startRun: async ({ config }) => {
        const control = await this.#requireRunControl();
        const parsed = parseRunConfig({ ...config, db: this.#options.dbPath }, "startRun config");
        return control.start(resolveRunPaths(parsed, dirname(this.#options.dbPath)));
      },
      pauseRun: async ({ runId }) => {
        await (await this.#requireRunControl()).pause(runId);
        return { runId };
      },
      resumeRun: async ({ runId }) => {
        await (await this.#requireRunControl()).resume(runId);
        return { runId };
      },
      stopRun: async ({ runId }) => {
        await (await this.#requireRunControl()).stop(runId);
        return { runId };
      },
    };
  }
}
