// @ts-check
// A module resolve hook for the sandbox child, registered with `module.register()` before Pyodide
// loads. Node 20's permission model does not cover the network, and escaped code could still
// `import("node:net")`: this hook refuses the modules that reach the network, other processes,
// threads or the debugger, every URL scheme but `file:` and `node:` (a `data:` URL is code), and
// `node:module` (its createRequire would bypass this hook) except once per explicit grant from
// the host: Pyodide's loader imports it each time an interpreter is created.

/** Built-in modules environment code must never reach. */
export const BLOCKED_BUILTINS = new Set([
  "net", "http", "https", "http2", "dgram", "tls", "dns", "dns/promises", "child_process",
  "worker_threads", "inspector", "inspector/promises", "cluster", "repl", "trace_events", "wasi",
  "undici", "diagnostics_channel",
]);

let moduleGrants = 0;

/**
 * Receives the host's grants: each "grant-module" message allows one `node:module` import and is
 * acknowledged, so the host can wait for the grant to be in force before it loads Pyodide.
 * @param {{ port?: import("node:worker_threads").MessagePort } | undefined} data
 */
export function initialize(data) {
  const port = data?.port;
  if (!port) return;
  port.on("message", (message) => {
    if (message === "grant-module") {
      moduleGrants = 1;
      port.postMessage("granted");
    }
  });
  port.unref();
}

/**
 * @param {string} specifier
 * @returns {string | null} the built-in's bare name, or null when the specifier is no built-in
 */
function builtinName(specifier) {
  if (specifier.startsWith("node:")) return specifier.slice(5);
  return /^[a-z_]+(\/[a-z_]+)?$/.test(specifier) ? specifier : null;
}

/**
 * @param {string} specifier
 * @param {{ parentURL?: string }} context
 * @param {(specifier: string, context: object) => Promise<{ url: string }>} nextResolve
 */
export async function resolve(specifier, context, nextResolve) {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(specifier)?.[1]?.toLowerCase();
  if (scheme && scheme !== "node" && scheme !== "file") {
    throw new Error(`sandbox: import of a "${scheme}:" URL is not allowed`);
  }
  const name = builtinName(specifier);
  if (name !== null && BLOCKED_BUILTINS.has(name)) {
    throw new Error(`sandbox: import of "${specifier}" is not allowed`);
  }
  if (name === "module") {
    if (moduleGrants === 0) throw new Error(`sandbox: import of "${specifier}" is not allowed`);
    moduleGrants = 0;
  }
  return nextResolve(specifier, context);
}
