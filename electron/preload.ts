// Sandboxed preload: puts exactly the workbench contract on `window.spade`, nothing else.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from "electron";
import { CALL_CHANNEL, EVENT_CHANNEL } from "../shared/api/wire.js";
import { createPreloadBridge } from "./preloadBridge.js";

const bridge = createPreloadBridge({
  invoke: (request) => ipcRenderer.invoke(CALL_CHANNEL, request),
  listen: (listener) => {
    const handler = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(EVENT_CHANNEL, handler);
    return () => ipcRenderer.removeListener(EVENT_CHANNEL, handler);
  },
});

contextBridge.exposeInMainWorld("spade", { call: bridge.call, onEvent: bridge.onEvent });
