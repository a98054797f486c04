// The method table: every API method's input validator. Both transports check each call against
// it, so an unknown method or a malformed input never reaches the engine.
import { ApiInputError } from "./ApiInputError.js";
import { arrayOf, boolean, finiteNumber, id, integer, jsonObject, matching, object, oneOf, optional, string, type Validator } from "./validators.js";
import type { MethodInput, MethodName } from "./WorkbenchApi.js";

const paging = { offset: optional(integer({ min: 0 })), limit: optional(integer({ min: 1, max: 1000 })) };
const code = string({ minLength: 1, maxLength: 1_000_000 });
const runRef = object({ runId: id });
const modelUri = matching(/^(hf:\S+|https?:\/\/\S+)$/i, "a model URI (hf:owner/repo/file.gguf or an http(s) URL)", 2000);

export const methodTable: { readonly [M in MethodName]: Validator<MethodInput<M>> } = {
  getInfo: object({}),
  listRuns: object({}),
  compareRuns: object({ runIds: arrayOf(id, 20) }),
  getRun: runRef,
  getRunMetrics: runRef,
  listEnvironments: object({
    runId: optional(id),
    iteration: optional(integer({ min: 0 })),
    valid: optional(boolean),
    regretMin: optional(finiteNumber()),
    regretMax: optional(finiteNumber()),
    winRateMin: optional(finiteNumber()),
    winRateMax: optional(finiteNumber()),
    text: optional(string({ maxLength: 500 })),
    order: optional(oneOf(["newest", "oldest", "slot", "regret", "winRate", "designerReward"] as const)),
    ...paging,
  }),
  getEnvironment: object({ envId: id }),
  validateCode: object({ code }),
  saveEnvironmentVersion: object({ parentId: id, code }),
  startPlay: object({ envId: id, seed: optional(integer({ min: 0, max: 2 ** 32 - 1 })) }),
  playStep: object({ sessionId: string({ minLength: 1, maxLength: 100 }), action: string({ maxLength: 100_000 }) }),
  endPlay: object({ sessionId: string({ minLength: 1, maxLength: 100 }) }),
  setMemoryFlags: object({ envId: id, pinned: optional(boolean), banned: optional(boolean), inMemory: optional(boolean) }),
  getEpisode: object({ episodeId: id }),
  getTurns: object({ episodeId: id, messages: optional(boolean), ...paging }),
  listDocuments: object({ text: optional(string({ maxLength: 500 })), ...paging }),
  getDocument: object({ documentId: string({ minLength: 1, maxLength: 1000 }) }),
  listModels: object({}),
  downloadModel: object({ uri: modelUri }),
  cancelModelDownload: object({ uri: modelUri }),
  listAdapters: object({ runId: optional(id) }),
  getAdapter: object({ adapterId: id }),
  listEvalResults: object({ adapterId: optional(id) }),
  listEnvSets: object({}),
  getEnvSet: object({ name: string({ minLength: 1, maxLength: 200 }) }),
  openEnvSetMember: object({ set: string({ minLength: 1, maxLength: 200 }), codeSha256: matching(/^[0-9a-f]{64}$/, "a SHA-256 in hex", 64) }),
  startRun: object({ config: jsonObject }),
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
  try {
    return { method, input: methodTable[method](input === undefined ? {} : input, "") as MethodInput<MethodName> };
  } catch (error) {
    if (error instanceof ApiInputError) throw new ApiInputError(`${method}: ${error.message}`);
    throw error;
  }
}
