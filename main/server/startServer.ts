// Browser mode: the built renderer and the workbench API on 127.0.0.1 only, behind a per-start token.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { WorkbenchApi } from "../../shared/api/WorkbenchApi.js";
import { dispatchCall } from "../api/dispatchCall.js";
import type { EventHub } from "../api/EventHub.js";
import { appRoot } from "../paths.js";
import { PortInUseError } from "./PortInUseError.js";
import { BodyError, readJsonBody } from "./readJsonBody.js";
import { foreignRequestReason, requestToken, tokenMatches } from "./requestGuards.js";
import { isPageFile, resolveStaticFile, sendFile } from "./serveStatic.js";
import { statusForError } from "./statusForError.js";
import { unauthorizedPage } from "./unauthorizedPage.js";

export interface ServerOptions {
  /** The engine to serve: its API and its event hub. */
  workbench: { api: WorkbenchApi; events: EventHub };
  /** The port to listen on; taken means PortInUseError. Defaults to `preferredPort`, else 0 (a free port chosen by the system). */
  port?: number;
  /** A port to try first when `port` is not given (the last one used); taken means a free one instead. Defaults to none. */
  preferredPort?: number;
  /** The option that sets the port, named by the port-in-use error. Defaults to "--port". */
  portOption?: string;
  /** What the 401 page tells a browser about getting the tokened address again. Defaults to a line about `spade serve` / `npm start`. */
  addressHint?: string;
  /** Only loopback is allowed. Defaults to "127.0.0.1". */
  host?: "127.0.0.1";
  /** The built renderer. Defaults to `out/renderer` in the app folder. */
  rendererDir?: string;
  /** Defaults to 32 random bytes, base64url, new on every start. */
  token?: string;
  /** Largest accepted request body. Defaults to 8 MiB. */
  maxBodyBytes?: number;
}

export interface RunningServer {
  port: number;
  token: string;
  /** `http://127.0.0.1:<port>/?token=<token>`. */
  url: string;
  close(): Promise<void>;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" });
  response.end(text);
}

function refuse(response: ServerResponse, status: number, message: string): void {
  sendJson(response, status, { ok: false, error: { name: status === 401 ? "Unauthorized" : "Forbidden", message } });
}

function refuseUpgrade(socket: Duplex, status: 401 | 403 | 404): void {
  const text = { 401: "Unauthorized", 403: "Forbidden", 404: "Not Found" }[status];
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  if (host !== "127.0.0.1") throw new Error(`startServer: host must be 127.0.0.1, got ${String(host)}`);
  const token = options.token ?? randomBytes(32).toString("base64url");
  const rendererDir = options.rendererDir ?? join(appRoot(), "out", "renderer");
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const { api, events } = options.workbench;
  let port = options.port ?? options.preferredPort ?? 0;
  const addressHint = options.addressHint ?? "Find the line “SPADE Workbench at http://127.0.0.1:…/?token=…” in the terminal where you ran `spade serve` or `npm start`, or stop it and start it again: it prints the address again.";

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const foreign = foreignRequestReason(request, port);
    if (foreign) return refuse(response, 403, `refused: ${foreign}`);

    if (url.pathname.startsWith("/api/")) {
      if (!tokenMatches(token, requestToken(request, url, false))) return refuse(response, 401, "missing or wrong token (send Authorization: Bearer <token>)");
      if (request.method !== "POST") return sendJson(response, 405, { ok: false, error: { name: "MethodNotAllowed", message: "API calls are POST" } });
      const type = request.headers["content-type"] ?? "";
      if (!type.startsWith("application/json")) {
        return sendJson(response, 415, { ok: false, error: { name: "UnsupportedMediaType", message: "API calls send Content-Type: application/json" } });
      }
      let args: unknown;
      try {
        args = await readJsonBody(request, maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyError) return sendJson(response, error.status, { ok: false, error: { name: "ApiInputError", message: error.message } });
        throw error;
      }
      let method: string;
      try {
        method = decodeURIComponent(url.pathname.slice("/api/".length));
      } catch {
        return sendJson(response, 400, { ok: false, error: { name: "ApiInputError", message: `the method name in ${url.pathname} is not valid %-encoding` } });
      }
      const reply = await dispatchCall(api, method, args);
      return sendJson(response, reply.ok ? 200 : statusForError(reply.error.name), reply);
    }

    if (request.method !== "GET" && request.method !== "HEAD") return refuse(response, 403, "only GET for pages");
    // The gate decides on the file the path resolves to, never on the raw path the client spelled.
    const file = resolveStaticFile(rendererDir, url.pathname);
    const isPage = file ? isPageFile(file) : url.pathname === "/" || url.pathname === "/index.html";
    if (isPage && !tokenMatches(token, requestToken(request, url, true))) {
      response.writeHead(401, {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
      });
      response.end(request.method === "HEAD" ? undefined : unauthorizedPage(addressHint));
      return;
    }
    if (!file) {
      response.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
      response.end(isPage ? `SPADE Workbench: the renderer is not built (no ${rendererDir}/index.html); run \`npm run build\`.\n` : "not found\n");
      return;
    }
    sendFile(response, file, port);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { ok: false, error: { name: "Error", message: (error as Error).message } });
      else response.destroy();
    });
  });

  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const clients = new Set<WebSocket>();
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/ws") return refuseUpgrade(socket, 404);
    if (foreignRequestReason(request, port)) return refuseUpgrade(socket, 403);
    if (!tokenMatches(token, requestToken(request, url, true))) return refuseUpgrade(socket, 401);
    sockets.handleUpgrade(request, socket, head, (client) => {
      clients.add(client);
      client.on("close", () => clients.delete(client));
      client.on("error", () => clients.delete(client));
    });
  });
  const unsubscribe = events.subscribe((event) => {
    const text = JSON.stringify(event);
    for (const client of clients) if (client.readyState === client.OPEN) client.send(text);
  });

  try {
    await listen(server, port, host);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    if (options.port !== undefined || options.preferredPort === undefined) throw new PortInUseError(port, options.portOption ?? "--port");
    port = 0; // the remembered port is taken: any free one
    await listen(server, port, host);
  }
  const address = server.address();
  port = typeof address === "object" && address ? address.port : port;

  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    async close() {
      unsubscribe();
      for (const client of clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
