// The preload's surface as a pure module (tested without Electron): exactly the method table's
// calls and the contract's events. Unknown methods and malformed inputs never reach IPC.
import { ApiInputError } from "../shared/api/ApiInputError.js";
import { workbenchEventTypes, type WorkbenchEvent } from "../shared/api/events.js";
import { checkCall } from "../shared/api/methodTable.js";
import type { SpadeBridge } from "../shared/api/SpadeBridge.js";
import type { CallRequest, CallResponse } from "../shared/api/wire.js";

export interface BridgeDeps {
  /** Sends one call on the `spade:call` channel. */
  invoke(request: CallRequest): Promise<CallResponse>;
  /** Listens on the `spade:event` channel; returns the function that stops. */
  listen(listener: (payload: unknown) => void): () => void;
}

function isEvent(payload: unknown): payload is WorkbenchEvent {
  const type = (payload as { type?: unknown } | null)?.type;
  return typeof type === "string" && (workbenchEventTypes as readonly string[]).includes(type);
}

export function createPreloadBridge(deps: BridgeDeps): SpadeBridge {
  return Object.freeze({
    async call(method: string, args: unknown): Promise<CallResponse> {
      let request: CallRequest;
      try {
        const checked = checkCall(method, args);
        request = { method: checked.method, args: checked.input };
      } catch (error) {
        if (error instanceof ApiInputError) return { ok: false, error: { name: error.name, message: error.message } };
        throw error;
      }
      return deps.invoke(request);
    },
    onEvent(listener: (event: WorkbenchEvent) => void): () => void {
      if (typeof listener !== "function") throw new TypeError("spade.onEvent expects a function");
      return deps.listen((payload) => {
        if (isEvent(payload)) listener(payload);
      });
    },
  });
}
