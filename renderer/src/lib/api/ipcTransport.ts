import type { SpadeBridge } from "../../../../shared/api/SpadeBridge.js";
import type { Transport } from "./Transport.js";

/** Electron: calls go through the preload's `window.spade` bridge. */
export function ipcTransport(bridge: SpadeBridge): Transport {
  return {
    kind: "ipc",
    call: (method, args) => bridge.call(method, args),
    subscribe: (listener) => bridge.onEvent(listener),
  };
}
