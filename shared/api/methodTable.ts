// The method table: every API method's input schema. Both transports check each call against it,
// so an unknown method or a malformed input never reaches the engine.
import * as z from "zod";
import { apiStyle, bool, expecting, int, num, oneOf, safeParseInput, strict, text } from "../validation/schema.js";
import { envExportFilters, envPackageFormats } from "../envExport.js";
import { ApiInputError } from "./ApiInputError.js";
import type { MethodInput, MethodName } from "./WorkbenchApi.js";

/** An optional field: absent, undefined and null all mean "not given". */
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);

const id = int(1, Number.MAX_SAFE_INTEGER);
const paging = { offset: optional(int(0)), limit: optional(int(1, 1000)) };
const code = text({ nonEmpty: true, maxLength: 1_000_000 });
const runRef = strict({ runId: id });
const sessionId = text({ nonEmpty: true, maxLength: 100 });
const modelUri = expecting(text({ maxLength: 2000 }).regex(/^(hf:\S+|https?:\/\/\S+)$/i), "a model URI (hf:owner/repo/file.gguf or an http(s) URL)");
const finite = num();

export const methodTable: { readonly [M in MethodName]: z.ZodType<MethodInput<M>, unknown> } = {
  getInfo: strict({}),
  checkTrainer: strict({ trainer: optional(oneOf(["gguf", "hf"])) }),
  listRuns: strict({}),
  compareRuns: strict({ runIds: expecting(z.array(id).max(20), "an array of at most 20 run ids"), baselineRunId: id.nullish() }),
  getRun: runRef,
  getRunMetrics: runRef,
  getRunTraining: runRef,
  listEnvironments: strict({
    runId: optional(id),
    iteration: optional(int(0)),
    valid: optional(bool()),
    regretMin: optional(finite),
    regretMax: optional(finite),
    winRateMin: optional(finite),
    winRateMax: optional(finite),
    text: optional(text({ maxLength: 500 })),
    skill: optional(text({ maxLength: 200 })),
    memory: optional(oneOf(["pinned", "banned", "inMemory", "none"])),
    order: optional(oneOf(["newest", "oldest", "slot", "regret", "winRate", "designerReward", "run", "skill", "memory"])),
    ...paging,
  }),
  getEnvironment: strict({ envId: id }),
  validateCode: strict({ code }),
  saveEnvironmentVersion: strict({ parentId: id, code }),
  startPlay: strict({ envId: id, seed: optional(int(0, 2 ** 32 - 1)) }),
  playStep: strict({ sessionId, action: text({ maxLength: 100_000 }) }),
  endPlay: strict({ sessionId }),
  setMemoryFlags: strict({ envId: id, pinned: optional(bool()), banned: optional(bool()), inMemory: optional(bool()) }),
  getEpisode: strict({ episodeId: id }),
  getTurns: strict({ episodeId: id, messages: optional(bool()), ...paging }),
  listDocuments: strict({ text: optional(text({ maxLength: 500 })), ...paging }),
  getDocument: strict({ documentId: text({ nonEmpty: true, maxLength: 1000 }) }),
  listModels: strict({}),
  downloadModel: strict({ uri: modelUri }),
  cancelModelDownload: strict({ uri: modelUri }),
  listAdapters: strict({ runId: optional(id) }),
  getAdapter: strict({ adapterId: id }),
  listEvalResults: strict({ adapterId: optional(id) }),
  listEnvSets: strict({}),
  getEnvSet: strict({ name: text({ nonEmpty: true, maxLength: 200 }) }),
  exportEnvironments: strict({
    format: oneOf(envPackageFormats),
    runId: optional(id),
    filter: optional(oneOf(envExportFilters)),
    set: optional(text({ nonEmpty: true, maxLength: 200 })),
    outDir: optional(text({ nonEmpty: true, maxLength: 4096 })),
  }),
  openEnvSetMember: strict({ set: text({ nonEmpty: true, maxLength: 200 }), codeSha256: expecting(text({ maxLength: 64 }).regex(/^[0-9a-f]{64}$/), "a SHA-256 in hex") }),
  startRun: strict({ config: expecting(z.record(z.string(), z.unknown()), "an object") }),
  pauseRun: runRef,
  resumeRun: runRef,
  stopRun: runRef,
};

export const methodNames = Object.keys(methodTable) as MethodName[];

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === "string" && Object.hasOwn(methodTable, name);
}

/** Checks a call from outside: the method must be in the table and its input must validate. */
export function checkCall(method: unknown, input: unknown): { method: MethodName; input: MethodInput<MethodName> } {
  if (!isMethodName(method)) {
    throw new ApiInputError(`unknown method ${JSON.stringify(method)} (known: ${methodNames.join(", ")})`);
  }
  const result = safeParseInput(methodTable[method] as z.ZodType<MethodInput<MethodName>, unknown>, input === undefined ? {} : input, apiStyle);
  if (!result.ok) throw new ApiInputError(`${method}: ${result.message}`);
  return { method, input: stripUndefined(result.value) };
}

/** Optional fields that were not given are left out, not set to undefined. */
function stripUndefined<T>(value: T): T {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
