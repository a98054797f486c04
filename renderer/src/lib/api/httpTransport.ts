import type { WorkbenchEvent } from "../../../../shared/api/events.js";
import type { CallResponse } from "../../../../shared/api/wire.js";
import type { Transport } from "./Transport.js";

export interface HttpTransportOptions {
  /** The server's per-start token (from the page's `?token=`). */
  token: string;
  /** Defaults to the page's own origin. */
  origin?: string;
  /** Delay before reconnecting a dropped event socket. Defaults to 1000 ms. */
  reconnectMs?: number;
}

/** Browser mode: `POST /api/<method>` for calls, one shared WebSocket `/ws` for events. */
export function httpTransport(options: HttpTransportOptions): Transport {
  const origin = options.origin ?? window.location.origin;
  const reconnectMs = options.reconnectMs ?? 1000;
  const listeners = new Set<(event: WorkbenchEvent) => void>();
  let socket: WebSocket | null = null;

  function connect(): void {
    if (socket || listeners.size === 0) return;
    const url = `${origin.replace(/^http/, "ws")}/ws?token=${encodeURIComponent(options.token)}`;
    const current = new WebSocket(url);
    socket = current;
    current.onmessage = (message) => {
      let event: WorkbenchEvent;
      try {
        event = JSON.parse(String(message.data)) as WorkbenchEvent;
      } catch {
        return;
      }
      for (const listener of [...listeners]) listener(event);
    };
    current.onclose = () => {
      socket = null;
      if (listeners.size > 0) setTimeout(connect, reconnectMs);
    };
  }

  return {
    kind: "http",
    async call(method, args) {
      let response: Response;
      try {
        response = await fetch(`${origin}/api/${encodeURIComponent(method)}`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${options.token}` },
          body: JSON.stringify(args ?? {}),
        });
      } catch (error) {
        return { ok: false, error: { name: "NetworkError", message: `the workbench server did not answer (${(error as Error).message})` } };
      }
      try {
        return (await response.json()) as CallResponse;
      } catch {
        return { ok: false, error: { name: "HttpError", message: `the server answered ${response.status} ${response.statusText} without JSON` } };
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      connect();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && socket) {
          const closing = socket;
          socket = null;
          closing.onclose = null;
          closing.close();
        }
      };
    },
  };
}
