// The renderer is served from `app://workbench/` (not file://): a real origin for the CSP and
// for navigation checks, and only files inside out/renderer are reachable.
import { net, protocol } from "electron";
import { join, normalize, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { contentSecurityPolicy } from "../shared/api/contentSecurityPolicy.js";

export const APP_SCHEME = "app";
export const APP_ORIGIN = "app://workbench";

/** Must run before the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

export function serveAppProtocol(rendererDir: string): void {
  const root = normalize(rendererDir);
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    const relative = normalize(decodeURIComponent(url.pathname === "/" ? "/index.html" : url.pathname)).replace(/^([/\\])+/, "");
    const file = join(root, relative);
    if (url.host !== "workbench" || !file.startsWith(root + sep)) return new Response("not found", { status: 404 });
    const response = await net.fetch(pathToFileURL(file).href);
    const headers = new Headers(response.headers);
    headers.set("Content-Security-Policy", contentSecurityPolicy());
    headers.set("X-Content-Type-Options", "nosniff");
    return new Response(response.body, { status: response.status, headers });
  });
}
