// What the Electron preload puts on `window.spade`: the contract's calls and its events, nothing else.
import type { WorkbenchEvent } from "./events.js";
import type { CallResponse } from "./wire.js";

export interface SpadeBridge {
  /** Calls one method of the method table; an unknown method or a bad input is refused. */
  call(method: string, args: unknown): Promise<CallResponse>;
  /** Listens to engine events; returns the function that stops listening. */
  onEvent(listener: (event: WorkbenchEvent) => void): () => void;
}
