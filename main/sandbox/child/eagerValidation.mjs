// @ts-check
// The sandbox child runs with V8's `--wasm-lazy-validation`: the interpreter's 9.6 MB module is
// compiled without validating every function body up front (a function is validated when it is
// first called, before it is compiled, and an invalid one throws a CompileError there instead of
// running). That is the interpreter's own module, read from the read-only Pyodide folder. Every
// other module keeps the standard behaviour: Pyodide probes WebAssembly features by compiling
// small modules and catching the CompileError, and Emscripten compiles small wrapper modules, so
// these are validated in full before they are compiled (`WebAssembly.validate` always validates
// every function, whatever the flag says).

/** @typedef {ArrayBuffer | ArrayBufferView} Bytes */

/** @param {unknown} source @returns {source is Bytes} */
function isBytes(source) {
  return source instanceof ArrayBuffer || ArrayBuffer.isView(source);
}

/**
 * Installs the eager validation on this realm's `WebAssembly` (before anything compiles a module,
 * and before the realm is frozen). Returns `trustOnce(byteLength)`: the next module compiled from
 * exactly that many bytes (the interpreter's, whose size the host reads from its file) is the one
 * compiled with lazy validation; `trustOnce(-1)` withdraws a trust not used yet.
 * @param {any} [wasm] the realm's `WebAssembly` namespace
 * @returns {(byteLength: number) => void}
 */
export function validateModulesEagerly(wasm = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (globalThis)).WebAssembly) {
  const { Module, compile, instantiate, validate, CompileError } = wasm;
  let trusted = -1;
  /** Throws the CompileError eager validation would have thrown, unless these are the trusted bytes. */
  const check = (/** @type {Bytes} */ bytes, /** @type {string} */ api) => {
    if (bytes.byteLength === trusted) {
      trusted = -1;
      return;
    }
    if (!validate(bytes)) throw new CompileError(`WebAssembly.${api}(): the module is not valid WebAssembly (validated in full before compiling)`);
  };
  /** @type {any} */
  const EagerModule = new Proxy(Module, {
    construct(/** @type {any} */ target, /** @type {unknown[]} */ args, /** @type {any} */ newTarget) {
      if (isBytes(args[0])) check(args[0], "Module");
      return Reflect.construct(target, args, newTarget === EagerModule ? target : newTarget);
    },
  });
  const eagerCompile = async (/** @type {Bytes} */ bytes) => {
    if (isBytes(bytes)) check(bytes, "compile");
    return compile(bytes);
  };
  const eagerInstantiate = async (/** @type {any} */ source, /** @type {object | undefined} */ imports) => {
    if (isBytes(source)) check(source, "instantiate");
    return instantiate(source, imports);
  };
  /** The streaming forms read the whole response, then go through the checked forms. */
  const eagerCompileStreaming = async (/** @type {{ arrayBuffer(): Promise<ArrayBuffer> } | PromiseLike<{ arrayBuffer(): Promise<ArrayBuffer> }>} */ source) => eagerCompile(await (await source).arrayBuffer());
  const eagerInstantiateStreaming = async (/** @type {{ arrayBuffer(): Promise<ArrayBuffer> } | PromiseLike<{ arrayBuffer(): Promise<ArrayBuffer> }>} */ source, /** @type {object | undefined} */ imports) =>
    eagerInstantiate(await (await source).arrayBuffer(), imports);
  const replaced = { Module: EagerModule, compile: eagerCompile, instantiate: eagerInstantiate, compileStreaming: eagerCompileStreaming, instantiateStreaming: eagerInstantiateStreaming };
  for (const [name, value] of Object.entries(replaced)) {
    if (name in wasm) Object.defineProperty(wasm, name, { value, writable: true, enumerable: false, configurable: true });
  }
  return (byteLength) => {
    trusted = byteLength;
  };
}
