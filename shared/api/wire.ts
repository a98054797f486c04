// The envelope both transports carry: a call, its result or a serialised error.
import type { MethodName } from "./WorkbenchApi.js";

/** Electron IPC channel names: one for calls, one for pushed events. */
export const CALL_CHANNEL = "spade:call";
export const EVENT_CHANNEL = "spade:event";

export interface CallRequest {
  method: MethodName;
  args: unknown;
}

export interface WireError {
  /** The error class name, e.g. "ApiInputError", "NotFoundError". */
  name: string;
  message: string;
}

export type CallResponse = { ok: true; result: unknown } | { ok: false; error: WireError };

/** A failed call as the renderer sees it: the engine's error name and message. */
export class ApiCallError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
  ) {
    super(message);
  }
  override readonly name = "ApiCallError";
}
