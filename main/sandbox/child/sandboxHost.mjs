// @ts-check
// The sandbox child process: real CPython (Pyodide) running environment code for the engine.
//
// SandboxProcess starts this script with an empty environment, Node's permission model (file
// reads only in the Pyodide folder and this folder, no writes, no child processes), the
// moduleGate resolve hook, and on Linux inside its own network namespace. It talks to the parent
// over the IPC channel only, so nothing printed can corrupt the protocol.
//
// Interpreters: the first one is loaded cold, imports the Python harness and is snapshotted;
// every later one is created from that memory snapshot (about 0.2 s instead of 2-4 s). An
// interpreter runs one environment code: a session with different code, or after a session that
// left the interpreter unclean (see resources/python/spade_sandbox.py), gets a fresh one. A spare
// is prepared in the background while the child is idle.
//
// Messages from the parent: {id, op: "init" | "open" | "call" | "close", ...}; replies:
// {id, ok: true, ...} or {id, ok: false, error}.

import { register } from "node:module";
import fs from "node:fs";
import os from "node:os";
import { pathToFileURL } from "node:url";
import { hardenRealm } from "./hardenRealm.mjs";

/**
 * @typedef {object} Interpreter
 * @property {(json: string) => string} handle the harness's request handler
 * @property {string | null} code the only environment code this interpreter may run again
 * @property {string | null} taint why the interpreter must not be reused, once known
 * @property {boolean | null} clean the harness's verdict since the last session; null = not checked yet
 * @property {() => void} destroy
 */

const send = /** @type {(message: unknown) => boolean} */ (process.send?.bind(process));
const collectGarbage = /** @type {(() => void) | undefined} */ (/** @type {Record<string, unknown>} */ (globalThis).gc);
const endProcess = /** @type {{ reallyExit: (code: number) => never }} */ (/** @type {unknown} */ (process)).reallyExit.bind(process);
if (!send) throw new Error("sandboxHost must be started with an IPC channel");

const pyodideDir = process.argv[2];
if (!pyodideDir) throw new Error("usage: sandboxHost.mjs <pyodide folder>");

// Pyodide asks process.binding("constants") for fs flags, which the permission model refuses.
const constants = { fs: fs.constants, os: os.constants };
Object.defineProperty(process, "binding", {
  value: (/** @type {string} */ name) => {
    if (name === "constants") return constants;
    throw new Error(`process.binding(${JSON.stringify(name)}) is not available in the SPADE sandbox`);
  },
  configurable: true,
  writable: true,
});

const gate = new MessageChannel();
register(new URL("./moduleGate.mjs", import.meta.url), { data: { port: gate.port2 }, transferList: [gate.port2] });
gate.port1.unref();

/** Lets Pyodide's loader import node:module once, and waits until the hook has the grant. */
function grantModuleImport() {
  return new Promise((resolve) => {
    gate.port1.once("message", resolve);
    gate.port1.postMessage("grant-module");
  });
}

const MAX_LOADER_OUTPUT = 16_384;
let loaderOutput = "";
/** @param {string} text */
function captureLoaderOutput(text) {
  if (loaderOutput.length < MAX_LOADER_OUTPUT) loaderOutput += `${text}\n`.slice(0, MAX_LOADER_OUTPUT - loaderOutput.length);
}

await grantModuleImport();
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);

/** @type {Uint8Array | null} */
let snapshot = null;
/** @type {Interpreter | null} */
let current = null;
/** @type {Promise<Interpreter> | null} */
let spare = null;
let hardened = false;

/**
 * @param {Uint8Array | null} fromSnapshot
 * @returns {Promise<any>} the Pyodide API object
 */
async function loadInterpreter(fromSnapshot) {
  await grantModuleImport();
  return loadPyodide({
    indexURL: `${pyodideDir}/`,
    jsglobals: Object.create(null),
    env: { HOME: "/home/pyodide", PYTHONHASHSEED: "0" },
    stdin: () => null,
    stdout: captureLoaderOutput,
    stderr: captureLoaderOutput,
    checkAPIVersion: true,
    ...(fromSnapshot ? { _loadSnapshot: fromSnapshot } : { _makeSnapshot: true }),
  });
}

/**
 * Connects the harness in a loaded interpreter (see spade_sandbox.connect) and wraps its handler.
 * @param {any} py
 * @returns {Interpreter}
 */
function connectInterpreter(py) {
  const globals = py.toPy({});
  const connect = py.runPython("import sys\nsys.modules['spade_sandbox'].connect", { globals });
  globals.destroy();
  /** @type {Interpreter} */
  const interpreter = { handle: () => "", code: null, taint: null, clean: true, destroy: () => {} };
  const handle = connect((/** @type {string} */ reason) => {
    interpreter.taint ??= String(reason);
  });
  connect.destroy();
  interpreter.handle = (json) => handle(json);
  interpreter.destroy = () => {
    handle.destroy();
    interpreter.handle = () => {
      throw new Error("this interpreter was discarded");
    };
  };
  return interpreter;
}

/**
 * The first interpreter: loaded cold, the harness imported, a snapshot taken for the others.
 * @param {Record<string, string>} files Python files for /lib/spade
 * @param {Uint8Array | null} given a snapshot from an earlier child, if the parent has one
 */
async function initialize(files, given) {
  if (given) {
    try {
      // Pyodide reads the snapshot through 32-bit views: it must start on an aligned offset.
      snapshot = given.byteOffset % 8 === 0 ? given : new Uint8Array(given);
      current = connectInterpreter(await loadInterpreter(snapshot));
      return { snapshotCreated: false };
    } catch (error) {
      captureLoaderOutput(`the cached snapshot did not load (${String(error)}); starting cold`);
      snapshot = null;
      current = null;
    }
  }
  const py = await loadInterpreter(null);
  py.FS.mkdirTree("/lib/spade");
  for (const [name, source] of Object.entries(files)) py.FS.writeFile(`/lib/spade/${name}`, source);
  py.runPython("import sys\nsys.path.insert(0, '/lib/spade')\nimport spade_sandbox\nsys.path.remove('/lib/spade')\nspade_sandbox.prepare()");
  snapshot = py.makeMemorySnapshot();
  current = connectInterpreter(py);
  return { snapshotCreated: true };
}

async function createInterpreter() {
  if (!snapshot) throw new Error("no snapshot: the sandbox was not initialised");
  return connectInterpreter(await loadInterpreter(snapshot));
}

/** @type {boolean} */
let garbagePending = false;

/** Drops the current interpreter; its memory is reclaimed later, when the child is idle. */
function discardCurrent() {
  if (!current) return;
  current.destroy();
  current = null;
  garbagePending = true;
}

/** @type {NodeJS.Timeout | null} */
let spareTimer = null;
const SPARE_IDLE_MS = 100;
const CHECK_IDLE_MS = 5;
/** @type {ReturnType<typeof setTimeout> | null} */
let checkTimer = null;

/**
 * Once the child has been idle for a moment: checks the current interpreter, reclaims discarded
 * ones and prepares the next fresh interpreter. Creating one blocks this thread for a few hundred
 * ms, so it must not sit between a session's close and the next open of the same code, which
 * reuses the current interpreter anyway.
 */
function prepareSpareWhenIdle() {
  if (spareTimer) clearTimeout(spareTimer);
  spareTimer = null;
  // The self-play loop opens the same code many times in a row (one session per play): a check
  // done in the first idle moment is one the next open of that code does not wait for.
  if (checkTimer) clearTimeout(checkTimer);
  checkTimer = current?.clean === null ? setTimeout(() => ((checkTimer = null), checkCurrent()), CHECK_IDLE_MS) : null;
  if ((spare || !snapshot) && !garbagePending && current?.clean !== null) return;
  spareTimer = setTimeout(() => {
    spareTimer = null;
    checkCurrent();
    if (garbagePending) {
      garbagePending = false;
      collectGarbage?.();
    }
    if (spare) return;
    spare = createInterpreter();
    spare.catch(() => {
      spare = null;
    });
  }, SPARE_IDLE_MS);
}

/** @returns {Promise<Interpreter>} */
async function takeFresh() {
  const next = spare ?? createInterpreter();
  spare = null;
  return next;
}

/**
 * @param {{ code: string, maxObservationChars: number, maxPrintChars: number }} message
 */
async function open(message) {
  if (current && current.code === message.code) checkCurrent();
  let fresh = current !== null && current.code === null;
  // An interpreter only ever runs one code: a different code gets a fresh one.
  if (!current || (current.code !== null && current.code !== message.code) || current.taint !== null) {
    discardCurrent();
    current = await takeFresh();
    fresh = true;
  }
  current.code = message.code;
  const json = current.handle(JSON.stringify({ op: "open", code: message.code, maxObservationChars: message.maxObservationChars, maxPrintChars: message.maxPrintChars }));
  return { json, fresh };
}

/** @param {{ json: string }} message */
function call(message) {
  if (!current) throw new Error("no environment is open in this sandbox");
  return { json: current.handle(message.json) };
}

/**
 * Ends the session. The cleanliness check is left for later (checkCurrent): most of the time the
 * next session brings different code and the interpreter is discarded without it.
 */
function close() {
  if (!current) return { json: JSON.stringify({ ok: true, result: { clean: false, difference: "no interpreter" }, printed: "" }), kept: false, taint: null };
  const json = current.handle(JSON.stringify({ op: "close", check: false }));
  const response = JSON.parse(json);
  const taint = current.taint;
  const kept = taint === null && response.ok === true;
  current.clean = null;
  if (!kept) discardCurrent();
  return { json, kept, taint };
}

/** Runs the harness's cleanliness check on the current interpreter if it is still pending; discards it when not clean. */
function checkCurrent() {
  if (!current || current.clean !== null || current.taint !== null) return;
  const response = JSON.parse(current.handle(JSON.stringify({ op: "check" })));
  current.clean = response.ok === true && response.result?.clean === true;
  if (!current.clean) discardCurrent();
}

/** @param {any} message */
async function dispatch(message) {
  const id = message?.id;
  loaderOutput = "";
  try {
    /** @type {Record<string, unknown>} */
    let reply;
    switch (message?.op) {
      case "init": {
        const started = performance.now();
        const { snapshotCreated } = await initialize(message.files, message.snapshot ?? null);
        if (!hardened) {
          hardened = true;
          hardenRealm();
        }
        reply = { snapshot: snapshotCreated && message.wantSnapshot ? snapshot : null, startMs: performance.now() - started };
        break;
      }
      case "open":
        reply = await open(message);
        break;
      case "call":
        reply = call(message);
        break;
      case "close":
        reply = close();
        break;
      default:
        throw new Error(`unknown request ${JSON.stringify(message?.op)}`);
    }
    send({ id, ok: true, output: loaderOutput, ...reply });
  } catch (error) {
    send({ id, ok: false, error: error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error) });
  }
  prepareSpareWhenIdle();
}

let queue = Promise.resolve();
process.on("message", (message) => {
  if (spareTimer) clearTimeout(spareTimer);
  spareTimer = null;
  queue = queue.then(() => dispatch(message));
});
process.on("disconnect", () => endProcess(0));
send({ ready: true });
