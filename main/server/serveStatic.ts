// Serves the built renderer (out/renderer) with a strict Content-Security-Policy.
import { createReadStream, realpathSync, statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { contentSecurityPolicy } from "../../shared/api/contentSecurityPolicy.js";

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".ttf": "font/ttf",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".map": "application/json; charset=utf-8",
};

/** The page's policy, with the WebSocket back to this same server allowed. */
export function pagePolicy(port: number): string {
  return contentSecurityPolicy([`ws://127.0.0.1:${port}`, `ws://localhost:${port}`]);
}

/** Resolves a URL path (decoded, links followed) inside `root`, or null when it escapes it or names no file. */
export function resolveStaticFile(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes("\0")) return null;
  const relative = normalize(decoded === "/" ? "/index.html" : decoded).replace(/^([/\\])+/, "");
  try {
    const realRoot = realpathSync(root);
    const full = realpathSync(join(realRoot, relative));
    if (!full.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep)) return null;
    return statSync(full).isFile() ? full : null;
  } catch {
    return null;
  }
}

/**
 * Whether a resolved file is a page (any HTML file): pages need the token, whatever spelling of
 * the path (`/`, `/index.html`, `/%69ndex.html`, `/./index.html`) named it.
 */
export function isPageFile(file: string): boolean {
  return extname(file).toLowerCase() === ".html";
}

export function sendFile(response: ServerResponse, file: string, port: number): void {
  const type = contentTypes[extname(file).toLowerCase()] ?? "application/octet-stream";
  const headers: Record<string, string> = {
    "Content-Type": type,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": file.endsWith(".html") ? "no-store" : "public, max-age=31536000, immutable",
  };
  if (file.endsWith(".html")) {
    headers["Content-Security-Policy"] = pagePolicy(port);
    headers["Referrer-Policy"] = "no-referrer";
    headers["X-Frame-Options"] = "DENY";
  }
  response.writeHead(200, headers);
  createReadStream(file).pipe(response);
}
