import type { WorkbenchEvent } from "../../../../shared/api/events.js";
import type { CallResponse } from "../../../../shared/api/wire.js";

/** How the renderer reaches the engine: Electron IPC or loopback HTTP + WebSocket. */
export interface Transport {
  readonly kind: "ipc" | "http";
  call(method: string, args: unknown): Promise<CallResponse>;
  subscribe(listener: (event: WorkbenchEvent) => void): () => void;
}
