// @ts-check
// Hardening of the sandbox child's JavaScript realm, applied once Pyodide has loaded and before
// any environment code runs. Python code in Pyodide can end up holding a proxy of some JavaScript
// object (Pyodide's own modules keep a few); from any object, `.constructor.constructor` used to
// be the Function constructor, i.e. arbitrary JavaScript with the child's `process`. This closes
// that door, takes the dangerous methods off `process`, removes the network globals and freezes
// the language's shared prototypes so one interpreter cannot leave state for the next one.

const THROW = () => {
  throw new Error("not available in the SPADE sandbox");
};

/** `process` methods that could signal other processes, load native code or end the child. */
export const REMOVED_PROCESS_METHODS = [
  "kill", "_kill", "exit", "reallyExit", "abort", "dlopen", "_linkedBinding", "getBuiltinModule",
  "_debugProcess", "_debugEnd", "_startProfilerIdleNotifier", "_stopProfilerIdleNotifier", "chdir",
  "setuid", "setgid", "seteuid", "setegid", "setgroups", "initgroups", "loadEnvFile", "openStdin",
  "setUncaughtExceptionCaptureCallback", "setSourceMapsEnabled",
];

/** Globals that reach the network or load code. */
export const REMOVED_GLOBALS = [
  "fetch", "Request", "Response", "Headers", "FormData", "WebSocket", "EventSource", "require",
  "navigator", "BroadcastChannel",
];

/** The language's shared objects; frozen so nothing can be planted on them. */
function intrinsics() {
  const generator = Object.getPrototypeOf(function* () {});
  const asyncGenerator = Object.getPrototypeOf(async function* () {});
  const typedArray = Object.getPrototypeOf(Int8Array);
  return [
    Object, Function, Array, String, Number, Boolean, Symbol, BigInt, Error, EvalError, RangeError,
    ReferenceError, SyntaxError, TypeError, URIError, AggregateError, Promise, RegExp, Date, Map,
    Set, WeakMap, WeakSet, WeakRef, FinalizationRegistry, ArrayBuffer, SharedArrayBuffer, DataView,
    typedArray, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array,
    Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array, JSON, Math, Reflect,
    Atomics, Proxy, generator, asyncGenerator, Object.getPrototypeOf(generator.prototype),
    Object.getPrototypeOf(async function () {}), /** @type {Record<string, object>} */ (/** @type {unknown} */ (globalThis)).WebAssembly,
  ];
}

/**
 * Freezing a prototype makes plain assignment of a same-named property on objects inheriting
 * from it fail (the "override mistake"; Pyodide assigns `toString` and friends). This turns the
 * given data properties into accessors whose setter defines an own property on the receiver, so
 * assignment keeps working while the prototype itself stays unchangeable.
 * @param {object} prototype
 * @param {(string | symbol)[]} keys
 */
function allowOverrides(prototype, keys) {
  for (const key of keys) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
    if (!descriptor || !("value" in descriptor) || !descriptor.writable || !descriptor.configurable) continue;
    const value = descriptor.value;
    Object.defineProperty(prototype, key, {
      get() {
        return value;
      },
      set(/** @type {unknown} */ newValue) {
        if (this === prototype) throw new TypeError(`cannot change the shared ${String(key)} in the SPADE sandbox`);
        Object.defineProperty(this, key, { value: newValue, writable: true, enumerable: true, configurable: true });
      },
      enumerable: descriptor.enumerable,
      configurable: false,
    });
  }
}

/**
 * Hardens the realm. Keep references to anything the host itself still needs before calling.
 * @returns {string[]} what was done, for the isolation description
 */
export function hardenRealm() {
  const done = [];
  for (const fn of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    Object.defineProperty(Object.getPrototypeOf(fn), "constructor", { value: undefined, writable: false, configurable: false });
  }
  done.push("function constructors unreachable");
  const proc = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (process));
  for (const name of REMOVED_PROCESS_METHODS) {
    if (name in proc) {
      try {
        Object.defineProperty(proc, name, { value: THROW, writable: false, configurable: false });
      } catch {
        proc[name] = THROW;
      }
    }
  }
  for (const key of Object.keys(process.env)) delete process.env[key];
  done.push("process stripped");
  const global = /** @type {Record<string, unknown>} */ (globalThis);
  for (const name of REMOVED_GLOBALS) {
    if (Reflect.deleteProperty(global, name) === false) global[name] = undefined;
  }
  done.push("network globals removed");
  allowOverrides(Object.prototype, ["constructor", "toString"]);
  for (const root of [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, AggregateError]) {
    allowOverrides(root.prototype, ["name", "message", "toString", "constructor"]);
  }
  allowOverrides(Function.prototype, ["toString"]);
  // V8 reads Error.stackTraceLimit and Pyodide writes it, so Error is sealed rather than frozen:
  // every property but that number becomes read-only, and a custom stack formatter can never be
  // installed.
  Object.defineProperty(Error, "prepareStackTrace", { value: undefined, writable: false, configurable: false });
  for (const key of Reflect.ownKeys(Error)) {
    if (key !== "stackTraceLimit") Object.defineProperty(Error, key, { writable: false, configurable: false });
  }
  Object.seal(Error);
  const seen = new Set([Error]);
  for (const root of intrinsics()) {
    for (const object of [root, /** @type {{ prototype?: unknown }} */ (root).prototype]) {
      if ((typeof object === "object" || typeof object === "function") && object !== null && !seen.has(object)) {
        seen.add(object);
        Object.freeze(object);
      }
    }
  }
  done.push("intrinsics frozen");
  return done;
}
