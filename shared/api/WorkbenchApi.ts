// The workbench API: one typed contract, served by Electron IPC and by loopback HTTP/WebSocket.
import type { ValidationReport } from "../environment.js";
import type { DocumentDetail, DocumentPage } from "./corpusTypes.js";
import type { EnvironmentDetail, EnvironmentFilter, EnvironmentPage, MemoryFlags } from "./environmentTypes.js";
import type { EpisodeDetail, TurnPage } from "./episodeTypes.js";
import type { RunComparisonView } from "./compareTypes.js";
import type { EnvExportRequest, EnvExportResult } from "./envExportTypes.js";
import type { EnvSetDetail, EnvSetSummary } from "./envSetTypes.js";
import type { AdapterDetail, AdapterView, EvalResultView, ModelFile } from "./modelTypes.js";
import type { PlayStart, PlayStepResult } from "./playTypes.js";
import type { RunDetail, RunMetrics, RunSummary } from "./runTypes.js";
import type { RunTrainingView } from "./trainingTypes.js";
import type { TrainerEnvironment } from "../trainerEnvironment.js";

/** What the engine can do in this process (features whose modules are missing report false). */
export interface WorkbenchInfo {
  version: string;
  workspacePath: string;
  /** "electron" or "browser". */
  shell: string;
  validation: boolean;
  play: boolean;
  runControl: boolean;
}

export type { ModelFile };

type Empty = Record<string, never>;

/** Every method: its one input object and its result. */
export interface WorkbenchMethods {
  getInfo: { input: Empty; output: WorkbenchInfo };
  /** The trainer's Python as `spade trainer check` reports it: interpreter, packages, device, free memory, what it trains. */
  checkTrainer: { input: { trainer?: "gguf" | "hf" }; output: TrainerEnvironment };
  listRuns: { input: Empty; output: RunSummary[] };
  /** Runs side by side: per-iteration loop metrics, summaries, held-out scores, config differences. */
  compareRuns: { input: { runIds: number[]; baselineRunId?: number | null }; output: RunComparisonView };
  getRun: { input: { runId: number }; output: RunDetail };
  getRunMetrics: { input: { runId: number }; output: RunMetrics };
  /** The run's training rounds and which adapter played which iteration. */
  getRunTraining: { input: { runId: number }; output: RunTrainingView };
  listEnvironments: { input: EnvironmentFilter; output: EnvironmentPage };
  getEnvironment: { input: { envId: number }; output: EnvironmentDetail };
  validateCode: { input: { code: string }; output: ValidationReport };
  saveEnvironmentVersion: { input: { parentId: number; code: string }; output: { envId: number; validation: ValidationReport } };
  startPlay: { input: { envId: number; seed?: number }; output: PlayStart };
  playStep: { input: { sessionId: string; action: string }; output: PlayStepResult };
  endPlay: { input: { sessionId: string }; output: { closed: boolean } };
  setMemoryFlags: { input: { envId: number; pinned?: boolean; banned?: boolean; inMemory?: boolean }; output: MemoryFlags };
  getEpisode: { input: { episodeId: number }; output: EpisodeDetail };
  /** `messages`: include each turn's full prompt (large for long episodes). Defaults to false. */
  getTurns: { input: { episodeId: number; offset?: number; limit?: number; messages?: boolean }; output: TurnPage };
  listDocuments: { input: { text?: string; offset?: number; limit?: number }; output: DocumentPage };
  getDocument: { input: { documentId: string }; output: DocumentDetail };
  listModels: { input: Empty; output: { dir: string; files: ModelFile[] } };
  /**
   * Downloads a model URI (`hf:owner/repo/file.gguf` or `https://...`) into the models folder;
   * resolves when it is there. Progress comes as `modelProgress` events (phase "download").
   */
  downloadModel: { input: { uri: string }; output: ModelFile };
  cancelModelDownload: { input: { uri: string }; output: { cancelled: boolean } };
  listAdapters: { input: { runId?: number }; output: AdapterView[] };
  getAdapter: { input: { adapterId: number }; output: AdapterDetail };
  listEvalResults: { input: { adapterId?: number }; output: EvalResultView[] };
  listEnvSets: { input: Empty; output: EnvSetSummary[] };
  getEnvSet: { input: { name: string }; output: EnvSetDetail };
  /**
   * An environment of a set as a stored environment (created on first use for imported members,
   * source "import"), so it opens in the editor, validates and plays like any other.
   */
  openEnvSetMember: { input: { set: string; codeSha256: string }; output: { envId: number } };
  /** Writes environments as packages for another RL stack (`spade envs export --format`), with `manifest.json`. */
  exportEnvironments: { input: EnvExportRequest; output: EnvExportResult };
  startRun: { input: { config: Record<string, unknown> }; output: { runId: number } };
  pauseRun: { input: { runId: number }; output: { runId: number } };
  resumeRun: { input: { runId: number }; output: { runId: number } };
  stopRun: { input: { runId: number }; output: { runId: number } };
}

export type MethodName = keyof WorkbenchMethods;
export type MethodInput<M extends MethodName> = WorkbenchMethods[M]["input"];
export type MethodOutput<M extends MethodName> = WorkbenchMethods[M]["output"];

/** The contract as an object: one async function per method. */
export type WorkbenchApi = { [M in MethodName]: (input: MethodInput<M>) => Promise<MethodOutput<M>> };
