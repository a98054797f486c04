// The engine's edge, shared by both transports: check the call against the method table, run it,
// and turn any failure into a wire error (name + message; never a stack trace).
import { ApiInputError } from "../../shared/api/ApiInputError.js";
import { checkCall } from "../../shared/api/methodTable.js";
import type { CallResponse } from "../../shared/api/wire.js";
import type { WorkbenchApi } from "../../shared/api/WorkbenchApi.js";

export async function dispatchCall(api: WorkbenchApi, method: unknown, args: unknown): Promise<CallResponse> {
  try {
    const call = checkCall(method, args);
    const handler = api[call.method] as (input: unknown) => Promise<unknown>;
    return { ok: true, result: await handler.call(api, call.input) };
  } catch (error) {
    const err = error instanceof Error ? error : new Error(String(error));
    const name = err instanceof ApiInputError ? "ApiInputError" : err.name || "Error";
    return { ok: false, error: { name, message: err.message } };
  }
}
