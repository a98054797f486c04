// The engine behind the workbench: the API contract implemented over one workspace database,
// plus the event hub both transports forward. Transports call `dispatchCall(workbench.api, ...)`.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ApiInputError } from "../../shared/api/ApiInputError.js";
import type { EnvironmentFilter, MemoryStateFilter } from "../../shared/api/environmentTypes.js";
import type { WorkbenchEvent } from "../../shared/api/events.js";
import type { GpuChoice } from "../../shared/backendConfig.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import type { WorkbenchApi, WorkbenchInfo } from "../../shared/api/WorkbenchApi.js";
import { adapterLineage } from "../adapters/adapterLineage.js";
import { compareRuns } from "../experiments/compareRuns.js";
import { exportEnvironmentPackages } from "../exports/packages/exportEnvironmentPackages.js";
import { selectPackagedEnvironments } from "../exports/packages/selectPackagedEnvironments.js";
import { appRoot } from "../paths.js";
import { storedRunAblations } from "../selfplay/describeAblations.js";
import { checkRunConfigFiles } from "../selfplay/checkRunConfigFiles.js";
import { checkRunConfigSources } from "../selfplay/checkRunConfigSources.js";
import { hintSkipReasons } from "../selfplay/buildRunReport.js";
import { diagnoseRun } from "../selfplay/diagnoseRun.js";
import { resolveRunConfigPaths } from "../selfplay/resolveRunConfigPaths.js";
import * as store from "../store/index.js";
import { countDocuments, environmentCountsByRun, removeFromMemory } from "../store/queries/uiQueries.js";
import { checkTrainerEnvironment } from "../training/checkTrainerEnvironment.js";
import { createEnvironmentRuntime, createRunControl, type EnvironmentRuntime, type RunControl } from "./EngineParts.js";
import { EventHub } from "./EventHub.js";
import { listModelFiles } from "./listModelFiles.js";
import { ModelDownloads } from "./ModelDownloads.js";
import { ModelInsightsReader } from "./ModelInsightsReader.js";
import { NotFoundError } from "./NotFoundError.js";
import { openEnvSetMember } from "./openEnvSetMember.js";
import { PlaySessions } from "./PlaySessions.js";
import { toComparisonView } from "./toComparisonView.js";
import { toRunTrainingView } from "./toRunTrainingView.js";
import * as views from "./toViews.js";
import { toWorkbenchEvent } from "./toWorkbenchEvent.js";
import { UnavailableError } from "./UnavailableError.js";
import { WorkspaceWatcher } from "./WorkspaceWatcher.js";

export interface WorkbenchOptions {
  /** The workspace database file (created when missing). */
  dbPath: string;
  /** Shown in settings. Defaults to "browser". */
  shell?: "electron" | "browser";
  /** Where local GGUF models are listed from. Defaults to SPADE_MODELS_DIR, else `models/` beside the workspace. */
  modelsDir?: string;
  /**
   * The sandbox + validator. Defaults to the engine's own sandbox pool, started on first use; null
   * disables validation and manual play.
   */
  runtime?: EnvironmentRuntime | null;
  /** The self-play run controller. Defaults to the engine's own; null disables run control. */
  runControl?: RunControl | null;
  /** The GPU the Models page's fit estimates assume. Defaults to "auto" (what a run's backend.gpu defaults to). */
  modelInsightsGpu?: GpuChoice;
  /**
   * How often the workspace is checked for what other processes wrote (their runs' progress and
   * state reach the event stream); null: not watched. Defaults to 250 ms.
   */
  watchMs?: number | null;
}

const orderMap: Record<NonNullable<EnvironmentFilter["order"]>, { orderBy: store.EnvironmentOrder; descending: boolean }> = {
  oldest: { orderBy: "id", descending: false },
  newest: { orderBy: "id", descending: true },
  slot: { orderBy: "slot", descending: false },
  regret: { orderBy: "regret", descending: true },
  winRate: { orderBy: "winRate", descending: true },
  designerReward: { orderBy: "designerReward", descending: true },
  run: { orderBy: "run", descending: true },
  skill: { orderBy: "skill", descending: false },
  memory: { orderBy: "memory", descending: true },
};

const memoryFilters: Record<MemoryStateFilter, Pick<store.EnvironmentFilter, "pinned" | "banned" | "inMemory">> = {
  pinned: { pinned: true },
  banned: { banned: true },
  inMemory: { inMemory: true },
  none: { pinned: false, banned: false, inMemory: false },
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
    skill: filter.skill,
    ...(filter.memory ? memoryFilters[filter.memory] : {}),
    ...order,
  };
}

/** A set's members with the statistics of their plays across runs. */
function listSetMembers(db: store.ReadonlyDb, name: string) {
  const plays = store.envSetMemberPlays(db, name);
  return store.listEnvSetMembers(db, name).map((member) => views.toEnvSetMemberView(member, plays.get(member.codeSha256) ?? null));
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
  /** One manual play at a time: its sandbox process is held, the pool's other one stays free for validation. */
  readonly #plays = new PlaySessions({ maxSessions: 1 });
  readonly #modelsDir: string;
  readonly #insights: ModelInsightsReader;
  readonly #downloads: ModelDownloads;
  /** Started on first use (it spawns sandbox processes); null when disabled. */
  #runtime: Promise<EnvironmentRuntime> | null = null;
  readonly #runtimeEnabled: boolean;
  readonly #runControl: RunControl | null;
  readonly #watcher: WorkspaceWatcher | null;

  private constructor(db: store.WritableDb, options: WorkbenchOptions) {
    this.db = db;
    this.#options = options;
    this.#modelsDir = options.modelsDir ?? process.env.SPADE_MODELS_DIR ?? join(dirname(options.dbPath), "models");
    this.#downloads = new ModelDownloads({ modelsDir: this.#modelsDir, emit: (event) => this.emit(event) });
    this.#insights = new ModelInsightsReader({ gpu: options.modelInsightsGpu ?? "auto" });
    this.#runtimeEnabled = options.runtime !== null;
    if (options.runtime) this.#runtime = Promise.resolve(options.runtime);
    const control = options.runControl === undefined ? createRunControl(db, (event) => this.emit(event)) : options.runControl;
    this.#runControl = control ? this.#wire(control) : null;
    this.api = this.#createApi();
    this.#watcher = options.watchMs === null ? null : new WorkspaceWatcher(db, (event) => this.emit(event), { pollMs: options.watchMs ?? 250 });
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
    this.#watcher?.close();
    this.#downloads.cancelAll();
    await this.#plays.closeAll();
    await this.#insights.dispose();
    const runtime = await this.#runtime?.catch(() => null);
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

  /** The sandbox, started on first use; a failed start is retried by the next call. */
  async #requireRuntime(what: string): Promise<EnvironmentRuntime> {
    if (!this.#runtimeEnabled) throw new UnavailableError(`${what} needs the environment sandbox, which this workbench was started without`);
    const starting = (this.#runtime ??= createEnvironmentRuntime());
    try {
      return await starting;
    } catch (error) {
      if (this.#runtime === starting) this.#runtime = null;
      throw error;
    }
  }

  #requireRunControl(): RunControl {
    if (!this.#runControl) throw new UnavailableError("run control is not available in this workbench (it was started without the self-play loop)");
    return this.#runControl;
  }

  #environment(envId: number): store.Environment {
    const env = store.getEnvironment(this.db, envId);
    if (!env) throw new NotFoundError(`no environment ${envId}`);
    return env;
  }

  #runSummary(run: store.Run, counts?: { total: number; valid: number }) {
    const total = counts?.total ?? store.countEnvironments(this.db, { runId: run.id });
    const valid = counts?.valid ?? store.countEnvironments(this.db, { runId: run.id, valid: true });
    return views.toRunSummary(run, total, valid, storedRunAblations(run.config));
  }

  #createApi(): WorkbenchApi {
    const db = this.db;
    const modelsDir = this.#modelsDir;
    return {
      getInfo: async () => {
        const info: WorkbenchInfo = {
          version: readVersion(),
          workspacePath: this.#options.dbPath,
          shell: this.#options.shell ?? "browser",
          validation: this.#runtimeEnabled,
          play: this.#runtimeEnabled,
          runControl: this.#runControl !== null,
        };
        return info;
      },
      checkTrainer: async ({ trainer }) => checkTrainerEnvironment({ trainer: trainer ?? "gguf" }),
      listRuns: async () => {
        const counts = environmentCountsByRun(db);
        return store
          .listRuns(db)
          .map((run) => this.#runSummary(run, counts.get(run.id) ?? { total: 0, valid: 0 }))
          .sort((a, b) => b.id - a.id);
      },
      compareRuns: async ({ runIds, baselineRunId }) => {
        for (const runId of runIds) if (!store.getRun(db, runId)) throw new NotFoundError(`no run ${runId}`);
        if (baselineRunId != null && !runIds.includes(baselineRunId)) throw new ApiInputError(`compareRuns: baselineRunId: expected one of the compared runs (${runIds.join(", ")}), got ${baselineRunId}`);
        return toComparisonView(compareRuns(db, runIds, { baselineRunId: baselineRunId ?? null }));
      },
      getRun: async ({ runId }) => {
        const run = store.getRun(db, runId);
        if (!run) throw new NotFoundError(`no run ${runId}`);
        const summary = this.#runSummary(run);
        const hintsSkipped = [...hintSkipReasons(db, runId)].map(([environmentId, reason]) => ({ environmentId, reason }));
        return { ...views.toRunDetail(summary, run), diagnosis: summary.validEnvironments === 0 ? diagnoseRun(db, run) : null, hintsSkipped };
      },
      getRunMetrics: async ({ runId }) => {
        if (!store.getRun(db, runId)) throw new NotFoundError(`no run ${runId}`);
        return { runId, iterations: store.getMetrics(db, runId).map(views.toIterationMetrics) };
      },
      getRunTraining: async ({ runId }) => {
        if (!store.getRun(db, runId)) throw new NotFoundError(`no run ${runId}`);
        return toRunTrainingView(db, runId);
      },
      listEnvironments: async (filter) => {
        const base = storeFilter(filter);
        const offset = filter.offset ?? 0;
        const rows = store.listEnvironments(db, { ...base, offset, limit: filter.limit ?? 100 });
        const skipped = new Map<number, Map<number, string>>();
        const skipReason = (runId: number | null, envId: number) => {
          if (runId === null) return null;
          if (!skipped.has(runId)) skipped.set(runId, hintSkipReasons(db, runId));
          return skipped.get(runId)!.get(envId) ?? null;
        };
        return { total: store.countEnvironments(db, base), offset, items: rows.map((row) => views.toEnvironmentRow(row, skipReason(row.runId, row.id))) };
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
          prompt: env.prompt,
          rawReply: env.rawReply,
          validation: env.validation,
          hint: hint ? { source: hint.source === "env" ? "env" : "writer", text: hint.text } : null,
          hintSkipped: hint || env.runId === null ? null : (hintSkipReasons(db, env.runId).get(envId) ?? null),
          stats: stats ? views.toEnvironmentStats(stats) : null,
          memory: memory ? views.toMemoryFlags(memory) : null,
          childIds: store.listChildEnvironments(db, envId).map((child) => child.id),
          episodes: store.listEpisodes(db, envId).map((episode) => views.toEpisodeSummary(episode, env.iteration)),
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
        const game = store.getEnvironment(db, episode.environmentId);
        return { ...views.toEpisodeSummary(episode, game?.iteration ?? null), counterpartId: counterpart?.id ?? null, firstObservation: episode.firstObservation, className: game?.className ?? null };
      },
      getTurns: async ({ episodeId, offset = 0, limit = 200, messages = false }) => {
        const episode = store.getEpisode(db, episodeId);
        if (!episode) throw new NotFoundError(`no episode ${episodeId}`);
        const turns = store.getTurns(db, episodeId, { offset, limit, messages }).map(views.toTurnView);
        return { episodeId, total: episode.turnCount, offset, turns };
      },
      listDocuments: async ({ text, offset = 0, limit = 100 }) => {
        const items = store.listDocuments(db, { search: text, offset, limit });
        return { total: countDocuments(db, text), offset, items: items.map((d) => ({ id: d.id, corpus: d.corpus, title: d.title, excerpt: d.excerpt, words: d.words, environments: d.environments })), problems: store.listCorpusProblems(db) };
      },
      getDocument: async ({ documentId }) => {
        const doc = store.getDocument(db, documentId);
        if (!doc) throw new NotFoundError(`no document ${JSON.stringify(documentId)}`);
        const envs = store.listEnvironments(db, { documentId, limit: 500 });
        return { id: doc.id, corpus: doc.corpus, title: doc.title, excerpt: doc.text.slice(0, 160), words: doc.words, text: doc.text, environments: envs.length, environmentList: envs.map((e) => views.toEnvironmentListItem(e, e)) };
      },
      listModels: async () => ({ dir: modelsDir, files: await this.#insights.describe(listModelFiles(modelsDir)) }),
      downloadModel: async ({ uri }) => this.#downloads.download(uri),
      cancelModelDownload: async ({ uri }) => ({ cancelled: this.#downloads.cancel(uri) }),
      listAdapters: async ({ runId }) => store.listAdapters(db, runId).map(views.toAdapterView),
      getAdapter: async ({ adapterId }) => {
        const adapter = store.getAdapter(db, adapterId);
        if (!adapter) throw new NotFoundError(`no adapter ${adapterId}`);
        const lineage = adapterLineage(db, adapterId).slice(1);
        const childIds = store.listAdapters(db).filter((other) => other.parentId === adapterId).map((other) => other.id);
        const evalResults = store.listEvalResults(db, { adapterId }).map(views.toEvalResultView);
        return views.toAdapterDetail(adapter, lineage, childIds, evalResults);
      },
      listEvalResults: async ({ adapterId }) => store.listEvalResults(db, adapterId === undefined ? {} : { adapterId }).map(views.toEvalResultView),
      listEnvSets: async () => store.listEnvSets(db).map((set) => ({ name: set.name, members: set.members, createdAt: set.createdAt })),
      getEnvSet: async ({ name }) => {
        const set = store.getEnvSet(db, name);
        if (!set) throw new NotFoundError(`no environment set ${JSON.stringify(name)}`);
        return { name: set.name, members: set.members, createdAt: set.createdAt, items: listSetMembers(db, name) };
      },
      openEnvSetMember: async ({ set, codeSha256 }) => ({ envId: openEnvSetMember(db, set, codeSha256) }),
      exportEnvironments: async (request) => {
        if (request.set !== undefined && (request.runId !== undefined || request.filter !== undefined)) throw new ApiInputError("exportEnvironments: give a set, or a run and a filter, not both");
        if (request.runId !== undefined && !store.getRun(db, request.runId)) throw new NotFoundError(`no run ${request.runId}`);
        if (request.set !== undefined && !store.getEnvSet(db, request.set)) throw new NotFoundError(`no environment set ${JSON.stringify(request.set)}`);
        const outDir = resolve(dirname(this.#options.dbPath), request.outDir ?? join("exports", request.format));
        const filter = request.filter ?? "valid";
        const selection = request.set !== undefined ? `set:${request.set}` : `${request.runId === undefined ? "workspace" : `run:${request.runId}`} (${filter})`;
        const environments = selectPackagedEnvironments(db, { runId: request.runId, filter, set: request.set });
        if (environments.length === 0) throw new NotFoundError(`no environments match ${selection}: nothing to export`);
        const manifest = exportEnvironmentPackages(environments, { format: request.format, outDir, dbLabel: this.#options.dbPath, selection });
        return { format: request.format, outDir, packages: manifest.packages.length, files: manifest.files.length, selection };
      },
      startRun: async ({ config }) => {
        const control = this.#requireRunControl();
        const parsed = parseRunConfig({ ...config, db: this.#options.dbPath }, "run config");
        // A model URI downloads into the folder the models view lists, unless the config says otherwise.
        const backend = parsed.backend.kind === "llama" && parsed.backend.modelsDir === undefined ? { ...parsed.backend, modelsDir } : parsed.backend;
        const resolved = resolveRunConfigPaths({ ...parsed, backend }, dirname(this.#options.dbPath));
        checkRunConfigFiles(resolved, "run config");
        await checkRunConfigSources(resolved, "run config");
        return control.start(resolved);
      },
      pauseRun: async ({ runId }) => {
        await this.#requireRunControl().pause(runId);
        return { runId };
      },
      resumeRun: async ({ runId }) => {
        await this.#requireRunControl().resume(runId);
        return { runId };
      },
      stopRun: async ({ runId }) => {
        await this.#requireRunControl().stop(runId);
        return { runId };
      },
    };
  }
}
