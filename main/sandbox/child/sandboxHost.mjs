// @ts-check
// The sandbox child process: real CPython (Pyodide) running one environment's code for the engine.
//
// SandboxProcess starts this script inside the OS confinement (bubblewrap on Linux), with an
// empty environment, Node's permission model (reads: Pyodide, this folder, the snapshot file; no
// writes, no child processes), code generation from strings disallowed, and the moduleGate
// resolve hook. It talks to the parent over descriptor 3 only: newline-delimited JSON, one
// request, one reply.
//
// Life of a child: `init` loads one interpreter (from the memory snapshot when the parent has
// one), connects the harness and copies the interpreter's whole memory: that copy is the pristine
// state, the base every play starts from. The first `open` binds the child to that environment
// code; every later `open` must bring the same code and starts from the base again, so each play
// starts from an identical interpreter. The second `open` (the first play that reuses the child)
// runs the code from the pristine state and then copies the memory once more: from then on the
// base is the interpreter right after that open, and later opens answer as it did without running
// the code again (the open is deterministic: the harness seeds randomness and the clock first).
// The base is put back right after the reply to `close`, while the engine stores the episode.
//
// Several plays of the bound code may be open at once (each request names its play): the one
// whose state is in the interpreter is `current`, the others are parked. A request for another
// play parks the current one (a copy of the memory, the virtual clock and generator and the umask:
// what the base holds) and puts the requested play's copy back (a new play starts from the base),
// the same exact restore as between plays. A play may be parked only while nothing outside the
// memory changed (`fingerprint()` equals the base's) and the memory is within the kept growth;
// every reply says whether that holds (`shareable`). When it stops holding, the parked plays can
// never be put back exactly: they are dropped, and the engine fails them with that reason.
// Between requests the main thread blocks in a read of descriptor 3: apart from that restore (a
// memory copy, no Python), no JavaScript callback, timer or promise job runs while the child is idle.
//
// Recycling (`recyclable` at init, the engine's `sandbox.recycleProcesses`): the pristine copy is
// then kept apart from the post-open base, and a `recycle` request (no play open) puts the child
// back to the state it had when it became ready, for another game: only when nothing outside the
// memory differs from the pristine state (`fingerprint()`) and the memory never grew past its
// pristine size; it then puts back the pristine memory, the umask and the virtual sources and
// forgets every per-game variable, so that it answers every request as a never-used child does.
// Anything else refuses the recycle, and the engine ends the process. The buffers that held the
// last game's base and parked plays are kept for the next game's (`spareBuffers`): only ever read
// where that game wrote them, so nothing of the last game is read back.

import { register } from "node:module";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";
import { validateModulesEagerly } from "./eagerValidation.mjs";
import { hardenRealm } from "./hardenRealm.mjs";
import { applyPages, changedPages, copyPages, residentBytes, restorePages, savePages, savePagesAt } from "./sparseMemory.mjs";

/**
 * Where the start-up goes: [phase, CPU ms of this process (all threads), wall ms] per phase, from
 * the process's own start; sent with the init reply for `spade bench`.
 * @type {Array<[string, number, number]>}
 */
const phases = [];
const cpuUsage = process.cpuUsage.bind(process);
/** Wall ms since the process started (performance's origin), on the host's clock. */
const startClock = performance.now.bind(performance);
let phaseCpu = 0;
let phaseWall = 0;
/** Ends the phase running since the previous mark (the first: Node's own start, up to this script). */
function markPhase(/** @type {string} */ name) {
  const usage = cpuUsage();
  const cpu = (usage.user + usage.system) / 1000;
  const wall = startClock();
  phases.push([name, Number((cpu - phaseCpu).toFixed(1)), Number((wall - phaseWall).toFixed(1))]);
  phaseCpu = cpu;
  phaseWall = wall;
}
markPhase("nodeStart");

const PROTOCOL_FD = 3;
/** The host's own clock: the realm's clocks are virtual once the interpreter is loaded. */
const realNow = performance.now.bind(performance);
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
const writeSync = fs.writeSync;
const readSync = fs.readSync;
const endProcess = /** @type {{ reallyExit: (code: number) => never }} */ (/** @type {unknown} */ (process)).reallyExit.bind(process);

/** Writes one reply frame (a JSON text without newlines) and the newline. */
function sendFrame(/** @type {string} */ text) {
  const bytes = Buffer.from(`${text}\n`, "utf8");
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(PROTOCOL_FD, bytes, offset);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EAGAIN") endProcess(1);
    }
  }
}

/** @param {string} message */
function refuseToRun(message) {
  sendFrame(JSON.stringify({ id: 0, ok: false, error: message }));
  endProcess(3);
}

// Descriptors inherited from the engine (and from its own parent) other than the protocol's are
// closed before anything else runs. Node's own descriptors at this point are event loop handles
// (anon_inode), pipes it holds both ends of, and /dev/null; anything else (a file, a socket, a
// directory, one end of a pipe) came from outside.
{
  /** @type {Map<number, string>} */
  const targets = new Map();
  for (const name of fs.readdirSync("/proc/self/fd")) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= PROTOCOL_FD) continue;
    try {
      targets.set(fd, fs.readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // Gone already (the descriptor of the directory listing itself).
    }
  }
  const pipeEnds = new Map();
  for (const target of targets.values()) if (target.startsWith("pipe:")) pipeEnds.set(target, (pipeEnds.get(target) ?? 0) + 1);
  for (const [fd, target] of targets) {
    const own = target.startsWith("anon_inode:") || target === "/dev/null" || (target.startsWith("pipe:") && pipeEnds.get(target) >= 2);
    if (!own) {
      try {
        fs.closeSync(fd);
      } catch {
        // Already closed.
      }
    }
  }
}

// The permission model must be in force: under Electron a missing ELECTRON_RUN_AS_NODE, or an
// unknown flag, would otherwise leave a child that can write files and start processes.
const permission = /** @type {{ has?: (scope: string, reference?: string) => boolean } | undefined} */ (/** @type {Record<string, unknown>} */ (/** @type {unknown} */ (process)).permission);
if (typeof permission?.has !== "function" || permission.has("fs.write") || permission.has("child")) {
  refuseToRun("the sandbox child runs without Node's permission model (process.permission is missing or allows writes): refusing to run code");
}
/** True when JavaScript can still be compiled from a string in this realm. */
function evalWorks() {
  try {
    return new Function("return true")() === true;
  } catch {
    return false;
  }
}
if (evalWorks()) refuseToRun("the sandbox child allows code generation from strings: refusing to run code");

const pyodideDir = process.argv[2];
if (!pyodideDir) refuseToRun("usage: sandboxHost.mjs <pyodide folder>");

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

// The launch compiles WebAssembly with lazy validation; only the interpreter's own module (the one
// file of that size in the read-only Pyodide folder) uses it, once: every other module, Pyodide's
// feature probes first, is validated in full before it is compiled (eagerValidation.mjs).
const trustInterpreterModule = validateModulesEagerly();
const interpreterModuleBytes = fs.statSync(`${pyodideDir}/pyodide.asm.wasm`).size;

markPhase("permissionsAndGate");
await grantModuleImport();
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
markPhase("loaderImport");

/**
 * Runs one harness request; every way the harness runs goes through here (`runHarness`), which
 * marks the memory dirty first.
 * @type {(json: string) => string}
 */
let handle = () => {
  throw new Error("the sandbox was not initialised");
};
/** @type {any} */
let wasm = null;
/**
 * The memory every play starts from and what lived outside it then: the pristine interpreter, and
 * from the first reuse on the interpreter right after the open of the bound code.
 * @type {{ memory: import("./sparseMemory.mjs").SavedPages, fingerprint: string, umask: number, sources: Float64Array } | null}
 */
let base = null;
/**
 * The answer of the open the base was taken after (with the limits it was asked with), given again
 * to every later open; null while the base is the pristine interpreter.
 * @type {{ json: string, output: string, limits: string } | null}
 */
let openedBase = null;
/** The environment code this child is bound to, after its first open. */
let boundCode = /** @type {string | null} */ (null);
/** Opens of the bound code so far. */
let opens = 0;
/**
 * True when the memory may differ from the base's: the harness ran, or a parked play's pages were
 * put back, since the memory last was the base. False only when it is the base byte for byte (a
 * play opened from the base and not yet run is such a play): then parking it copies nothing and
 * putting the base back writes nothing, without comparing the memory at all.
 */
let dirty = false;
/** True after a `close` whose interpreter can be restored: the base goes back right after the reply. */
let restoreAfterReply = false;
/** How long the last restore took, in ms, for the next open's reply. */
let lastRestoreMs = /** @type {number | null} */ (null);
/** Bytes of the pristine interpreter's memory (the first base). */
let pristineBytes = 0;
/**
 * The pristine state itself (the memory when the child became ready, and what lived outside it),
 * kept apart from a post-open base only when the child may be recycled for another game.
 * @type {{ memory: import("./sparseMemory.mjs").SavedPages, fingerprint: string, umask: number, sources: Float64Array } | null}
 */
let pristine = null;
/** The engine may recycle this child for another game (`recycle`): the pristine copy is kept. */
let recyclable = false;
/** The open play whose state is in the interpreter, or null (the base, or a closed play's leftovers). */
let current = /** @type {number | null} */ (null);
/**
 * The other open plays, each with what `park()` copied: the pages where the play's memory differed
 * from the base it was parked against (`against`, the base object then: never written while a
 * parked play names it), those pages at their offsets in the play's buffer, and the state outside
 * the memory that the base holds too.
 * @type {Map<number, { pages: number[], against: { memory: import("./sparseMemory.mjs").SavedPages, fingerprint: string, umask: number, sources: Float64Array }, sources: Float64Array, umask: number }>}
 */
const parked = new Map();
/**
 * The buffer each open play's memory is parked in, kept while the play is open, and the buffers of
 * closed plays for the next plays to park in: allocating and faulting in tens of MiB at every
 * switch costs more than the copy. Each is as large as the memory may be kept (pristine + kept
 * growth) but only the part written is resident (the copies skip zero pages, `sparseMemory.mjs`),
 * so the child holds at most one copy per play it ever had open at once (the engine allows for
 * exactly that).
 * @type {Map<number, Uint8Array>}
 */
const playBuffers = new Map();
/** @type {Uint8Array[]} */
const spareBuffers = [];
/**
 * The buffer of the last game's post-open base, kept over a recycle for the next game's
 * (`takeBase`): allocating it again would report tens of MiB of new external memory to V8 at every
 * game, each time a reason for a garbage collection of the whole JavaScript heap.
 * @type {Uint8Array | null}
 */
let spareBaseBytes = null;
/** How long the last switch between plays took (park one, put another back), in ms; null when none since the last reply. */
let lastSwitchMs = /** @type {number | null} */ (null);

/**
 * What lives outside the interpreter's memory and must not change for a restore to be exact. The
 * in-memory file system lives in JavaScript: a node created (a pipe, a file) moves its inode
 * counter, and every open stream is listed with what a later play could read back or be changed
 * by (its descriptor, node, the node's mode and times, its flags and position), so a stream closed
 * and reopened on another file, or with bits ORed into its flags, is seen even when the count of
 * streams is the same. The files themselves cannot change (`lockFileSystem`).
 */
function fingerprint() {
  const FS = wasm.FS;
  /** @type {unknown[]} */
  const streams = [];
  for (const stream of FS?.streams ?? []) {
    if (!stream) continue;
    const node = stream.node;
    streams.push([stream.fd, node?.id, node?.mode, node?.atime, node?.mtime, node?.ctime, stream.flags, stream.position, stream.ungotten?.length ?? 0]);
  }
  const libraries = Object.keys(wasm.LDSO?.loadedLibsByName ?? {}).length;
  const files = [FS?.nextInode ?? -1, FS?.cwd?.() ?? null];
  return JSON.stringify([wasm.stackSave?.(), wasm.wasmTable?.length, libraries, streams, wasm._hiwire_num_refs?.(), files]);
}

/** Emscripten's EPERM: what a refused file-system call answers (Python raises PermissionError). */
const EPERM = 63;
/** Nodes with an id below this existed when the child became ready: none of them may change. */
let lockedBelow = Number.POSITIVE_INFINITY;

/**
 * Makes every node of the in-memory file system that exists now (the standard-library zip, the
 * folders, the devices and standard streams) unchangeable, whatever the stream's flags say (an
 * `fcntl(F_SETFL)` ORs O_RDWR into them): writes through any stream, shared writable mappings and
 * their write-back, preallocation, attribute changes (size, mode, times) and creating, renaming or
 * removing entries in its folders are refused with EPERM. Only nodes made later (a pipe the game
 * created, which ends its process anyway) can be written. Python refuses the same calls first,
 * naming them; this holds where Python's refusal is bypassed.
 */
function lockFileSystem() {
  const FS = wasm.FS;
  const MEMFS = FS?.filesystems?.MEMFS;
  if (!FS || !MEMFS?.ops_table || !MEMFS.stream_ops) throw new Error("the in-memory file system cannot be locked");
  lockedBelow = FS.nextInode;
  // The nodes were made at the process's start, stamped with the host's clock: every process would
  // show the game another start time (st_mtime of its standard streams). They all get the virtual epoch.
  /** @type {Set<any>} */
  const nodes = new Set([FS.root]);
  for (const head of FS.nameTable ?? []) for (let node = head; node; node = node.name_next) nodes.add(node);
  for (const node of nodes) if (node) node.atime = node.mtime = node.ctime = VIRTUAL_EPOCH_MS;
  /** @param {any} node */
  const locked = (node) => node !== null && typeof node === "object" && typeof node.id === "number" && node.id < lockedBelow;
  /** Wraps `fn` so that it refuses when the node `nodeOf(args)` is locked. */
  const guard = (/** @type {Function} */ fn, /** @type {(args: any[]) => unknown} */ nodeOf) =>
    /** @this {unknown} */
    function (/** @type {any[]} */ ...args) {
      if (locked(nodeOf(args))) throw new FS.ErrnoError(EPERM);
      return fn.apply(this, args);
    };
  const streamNode = (/** @type {any[]} */ args) => args[0]?.node;
  const firstArgument = (/** @type {any[]} */ args) => args[0];
  for (const name of ["write", "msync", "allocate"]) FS[name] = guard(FS[name], streamNode);
  const mmap = FS.mmap;
  // A writable shared mapping would write back at munmap or msync; a private one is the mapper's own copy.
  /** @this {unknown} */
  FS.mmap = function (/** @type {any[]} */ ...args) {
    const [stream, , , prot, flags] = args;
    if ((prot & 2) !== 0 && (flags & 2) === 0 && locked(stream?.node)) throw new FS.ErrnoError(EPERM);
    return mmap.apply(this, args);
  };
  // MEMFS's own write is also called directly by its msync.
  MEMFS.stream_ops.write = guard(MEMFS.stream_ops.write, streamNode);
  for (const table of Object.values(MEMFS.ops_table)) {
    for (const name of ["setattr", "mknod", "rename", "unlink", "rmdir", "symlink"]) if (typeof table.node?.[name] === "function") table.node[name] = guard(table.node[name], firstArgument);
    for (const name of ["write", "msync", "allocate"]) if (typeof table.stream?.[name] === "function") table.stream[name] = guard(table.stream[name], streamNode);
  }
}

/**
 * Pyodide's line writers for descriptors 1 and 2 keep every byte until a newline in the JavaScript
 * heap; once the child is ready they are replaced by writers that keep nothing (what reaches them
 * goes to the capped loader output). Environment code cannot reach them at all: writes to the
 * standard streams are refused (`lockFileSystem`).
 */
function boundStandardStreams(/** @type {any} */ py) {
  const decoder = new TextDecoder();
  const writer = {
    write: (/** @type {Uint8Array} */ bytes) => {
      if (loaderOutput.length < MAX_LOADER_OUTPUT) loaderOutput += decoder.decode(bytes.subarray(0, MAX_LOADER_OUTPUT - loaderOutput.length));
      return bytes.length;
    },
  };
  py.setStdout(writer);
  py.setStderr(writer);
}

/**
 * How far the JavaScript heap may grow past the pristine child's (measured once it is ready) and
 * the child still be kept for another play or recycled for another game: nothing a game does
 * should grow it (its state lives in the interpreter's memory), so growth past this margin
 * (garbage not yet collected stays well inside it) means something held on, and the process is
 * replaced.
 */
const MAX_HEAP_GROWTH_BYTES = 64 * 1024 * 1024;
let pristineHeapBytes = 0;
/** The JavaScript heap's growth past the pristine child's, in bytes. */
function heapGrowth() {
  return v8.getHeapStatistics().used_heap_size - pristineHeapBytes;
}

// Every entropy and clock source the interpreter reaches goes through Emscripten to this realm's
// `crypto.randomFillSync`, `Date.now` and `performance.now`. They are virtual: a generator and a
// clock seeded by the harness's seed points (0 at open, the seed at every reset), so two plays with
// the same seed see the same bytes and times by construction (os.urandom, an unseeded
// random.Random(), datetime.now(), time.process_time()...), and nothing of the host leaks in.
const VIRTUAL_EPOCH_MS = 1_700_000_000_000;
/** The virtual sources' state: [clock ms, generator words x4]; copied with the base memory. */
const sources = new Float64Array(5);

/** Seeds the virtual sources (splitmix32 of the seed into the generator's four words). */
function reseedSources(/** @type {number} */ seed) {
  let x = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
  sources[0] = 0;
  for (let i = 1; i < 5; i++) {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    sources[i] = (z ^ (z >>> 16)) >>> 0 || 1;
  }
}

/** The next 32 random bits of the virtual generator (xoshiro128**). */
function nextRandom() {
  const [, s0 = 0, s1 = 0, s2 = 0, s3 = 0] = sources;
  const rotl = (/** @type {number} */ v, /** @type {number} */ k) => ((v << k) | (v >>> (32 - k))) >>> 0;
  const result = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
  const t = (s1 << 9) >>> 0;
  let n2 = (s2 ^ s0) >>> 0, n3 = (s3 ^ s1) >>> 0;
  const n1 = (s1 ^ n2) >>> 0, n0 = (s0 ^ n3) >>> 0;
  n2 = (n2 ^ t) >>> 0;
  n3 = rotl(n3, 11);
  sources[1] = n0; sources[2] = n1; sources[3] = n2; sources[4] = n3;
  return result;
}

/** One virtual millisecond per reading: time moves, identically in every play. */
function tick() {
  const now = (sources[0] ?? 0) + 1;
  sources[0] = now;
  return now;
}

/** Puts the virtual sources in place of the realm's clocks and random source (before the realm is frozen). */
function virtualiseSources() {
  reseedSources(0);
  Date.now = () => VIRTUAL_EPOCH_MS + tick();
  Object.defineProperty(performance, "now", { value: () => tick(), writable: false, configurable: false });
  const fill = (/** @type {ArrayBufferView} */ view, offset = 0, size = undefined) => {
    const bytes = new Uint8Array(view.buffer, view.byteOffset + offset, size ?? view.byteLength - offset);
    for (let i = 0; i < bytes.length; i += 4) {
      const word = nextRandom();
      for (let k = 0; k < 4 && i + k < bytes.length; k++) bytes[i + k] = (word >>> (8 * k)) & 0xff;
    }
    return view;
  };
  Object.defineProperty(crypto, "randomFillSync", { value: fill, writable: false, configurable: false });
  // Web Crypto is another road to the host's entropy; Emscripten does not use it under Node.
  Reflect.deleteProperty(globalThis, "crypto");
  // The random devices keep a buffer in JavaScript that no restore puts back; Python needs neither (it uses getentropy).
  for (const device of ["/dev/urandom", "/dev/random"]) {
    try {
      wasm.FS.unlink(device);
    } catch {
      // not there
    }
  }
}

/** The process umask (Emscripten's umask() is the real process's): read without changing it. */
function currentUmask() {
  const mask = process.umask(0o022);
  process.umask(mask);
  return mask;
}

/**
 * The Emscripten exports that evaluate JavaScript, any require the loader left, and every way to
 * mount the host's file system (NODEFS, mountNodeFS) or its sockets: made inert. The API's own
 * methods are static class members, hence all own names, not only the enumerable ones.
 */
function neuterModule(/** @type {Record<string, unknown>} */ module, /** @type {Record<string, unknown>} */ api) {
  const inert = () => {
    throw new Error("not available in the SPADE sandbox");
  };
  const filesystems = /** @type {{ FS?: { filesystems?: Record<string, unknown> } }} */ (module).FS?.filesystems;
  for (const name of Object.keys(filesystems ?? {})) if (name !== "MEMFS") Reflect.deleteProperty(/** @type {object} */ (filesystems), name);
  for (const target of [module, api]) {
    for (const key of Object.getOwnPropertyNames(target)) {
      if (/run_script|^require$|^nodeRequire$|^eval$|^runJs$|NODEFS|NODERAWFS|^mountNodeFS$|^mountNativeFS$|^useNodeSockFS$/i.test(key)) {
        try {
          Object.defineProperty(target, key, { value: inert, writable: false, configurable: false });
        } catch {
          target[key] = inert;
        }
      }
    }
  }
}

/**
 * @param {{ snapshotPath: string | null, snapshotHeader: string | null, wantSnapshot: boolean, files: Record<string, string>, maxKeptGrowthBytes: number, recyclable?: boolean }} request
 */
async function initialize(request) {
  const started = realNow();
  if (!Number.isSafeInteger(request.maxKeptGrowthBytes) || request.maxKeptGrowthBytes < 0) throw new Error("init needs maxKeptGrowthBytes");
  maxKeptGrowthBytes = request.maxKeptGrowthBytes;
  recyclable = request.recyclable === true;
  markPhase("waitForInit");
  const given = readSnapshot(request.snapshotPath, request.snapshotHeader);
  markPhase("snapshotRead");
  /** @type {any} */
  let py = given ? await bootFromSnapshot(given) : null;
  let snapshot = /** @type {string | null} */ (null);
  const coldBooted = !py;
  if (!py) ({ py, snapshot } = await bootCold(request));
  connectHarness(py);
  markPhase("harnessConnect");
  neuterModule(wasm, py);
  virtualiseSources();
  boundStandardStreams(py);
  lockFileSystem();
  hardenRealm();
  markPhase("hardenRealm");
  base = { memory: savePages(wasm.HEAPU8), fingerprint: fingerprint(), umask: currentUmask(), sources: sources.slice() };
  pristineBytes = base.memory.length;
  pristine = base;
  markPhase("baseCopy");
  warmUp();
  pristineHeapBytes = v8.getHeapStatistics().used_heap_size;
  markPhase("warmUp");
  // What the pristine copy costs: its non-zero pages (the engine counts it for a recyclable child).
  return { startMs: realNow() - started, snapshot, fromSnapshot: given !== null && snapshot === null && !coldBooted, memoryBytes: wasm.HEAPU8.length, pristineResidentBytes: residentBytes(pristine.memory), phases };
}

/** Pyodide's own snapshot header: magic, offset of the memory image, JSON length, 0, the build id (8 words), then its JSON. */
const PYODIDE_HEADER_WORDS = 12;

/**
 * The snapshot in the cache file (after its header), or null (noted in the loader output) when
 * there is none, it cannot be read, or the file does not start with exactly the header the engine
 * verified (its key and the snapshot's SHA-256): then the interpreter boots cold. Only Pyodide's
 * own header (its configuration, a few KiB) is read here; `bootFromSnapshot` reads the memory
 * image from the open file into the interpreter's memory a chunk at a time, so it is never held twice.
 * @returns {{ fd: number, header: Uint8Array, memoryOffset: number, memoryBytes: number } | null}
 */
function readSnapshot(/** @type {string | null} */ path, /** @type {string | null} */ verifiedHeader) {
  if (!path) return null;
  if (typeof verifiedHeader !== "string") {
    captureLoaderOutput("the cached snapshot came without a verified header; starting cold");
    return null;
  }
  const expected = Buffer.from(verifiedHeader, "base64");
  let fd = -1;
  try {
    fd = fs.openSync(path, "r");
    const size = fs.fstatSync(fd).size;
    const readAt = (/** @type {number} */ length, /** @type {number} */ position) => {
      const bytes = Buffer.alloc(length);
      if (fs.readSync(fd, bytes, 0, length, position) !== length) throw new Error("the file is shorter than its header says");
      return bytes;
    };
    if (expected.length < 16 || size <= expected.length + PYODIDE_HEADER_WORDS * 4 || !readAt(expected.length, 0).equals(expected)) {
      captureLoaderOutput("the cached snapshot does not match the header the engine verified; starting cold");
      fs.closeSync(fd);
      return null;
    }
    const memoryStart = readAt(8, expected.length).readUInt32LE(4);
    if (memoryStart < PYODIDE_HEADER_WORDS * 4 || memoryStart % 16 !== 0 || expected.length + memoryStart >= size) throw new Error("its Pyodide header is malformed");
    return { fd, header: readAt(memoryStart, expected.length), memoryOffset: expected.length + memoryStart, memoryBytes: size - expected.length - memoryStart };
  } catch (error) {
    if (fd >= 0) fs.closeSync(fd);
    captureLoaderOutput(`the cached snapshot could not be read (${String(error)}); starting cold`);
    return null;
  }
}

/** Bytes of the snapshot's memory image read at a time (a whole number of `copyPages` pages). */
const SNAPSHOT_CHUNK_BYTES = 1 << 20;

/**
 * Loads the interpreter from a memory snapshot; null (noted) when the snapshot does not load.
 * Pyodide sizes the new memory from the snapshot it is given and copies the image in. It is given
 * its header in front of zero pages of the image's size (allocated, never touched, so never
 * resident), and its copy is replaced by a read of the image from the file into the interpreter's
 * memory, a chunk at a time, which writes only the pages that differ from zero there (about half
 * of the image is zero: those pages of the new memory stay untouched, not resident).
 * @param {{ fd: number, header: Uint8Array, memoryOffset: number, memoryBytes: number }} given
 */
async function bootFromSnapshot(given) {
  try {
    const sized = new Uint8Array(given.header.length + given.memoryBytes);
    sized.set(given.header);
    const readImage = (/** @type {any} */ api, /** @type {any} */ module) => {
      const restoreSnapshot = api.restoreSnapshot;
      api.restoreSnapshot = (/** @type {Uint8Array} */ snapshot) => {
        const config = restoreSnapshot(snapshot.subarray(0, given.header.length));
        const heap = module.HEAPU8;
        if (heap.length < given.memoryBytes) throw new Error("the interpreter's memory is smaller than the snapshot");
        // Through a scratch chunk, so that the image's zero pages are never written (`copyPages`).
        const chunk = new Uint8Array(Math.min(SNAPSHOT_CHUNK_BYTES, given.memoryBytes));
        for (let done = 0; done < given.memoryBytes; ) {
          const count = fs.readSync(given.fd, chunk, 0, Math.min(chunk.length, given.memoryBytes - done), given.memoryOffset + done);
          if (count === 0) throw new Error("the snapshot file ended early");
          copyPages(heap.subarray(done, done + count), chunk, count);
          done += count;
        }
        markPhase("snapshotCopy");
        return config;
      };
    };
    return await loadInterpreter({ _loadSnapshot: sized }, readImage);
  } catch (error) {
    captureLoaderOutput(`the cached snapshot did not load (${String(error)}); starting cold`);
    return null;
  } finally {
    fs.closeSync(given.fd);
  }
}

/** Boots the interpreter from nothing and imports the harness; the snapshot of that state when asked for one. */
async function bootCold(/** @type {{ wantSnapshot: boolean, files: Record<string, string> }} */ request) {
  const py = await loadInterpreter({ _makeSnapshot: true });
  py.FS.mkdirTree("/lib/spade");
  for (const [name, source] of Object.entries(request.files)) py.FS.writeFile(`/lib/spade/${name}`, source);
  py.runPython("import sys\nsys.path.insert(0, '/lib/spade')\nimport spade_sandbox\nsys.path.remove('/lib/spade')\nspade_sandbox.prepare()");
  markPhase("harnessImport");
  const bytes = py.makeMemorySnapshot();
  markPhase("snapshotMake");
  const snapshot = request.wantSnapshot ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") : null;
  return { py, snapshot };
}

/**
 * loadPyodide with its steps marked as phases of their own, through Pyodide's `createPyodideModule`
 * seam (its Emscripten factory): the WebAssembly compile and instantiation (the instantiation hook
 * wrapped), Emscripten's start (dynamic linking, the file system), Pyodide's bootstrap (the Python
 * side of its API) and its setup. `prepare` may wrap the API's functions before loadPyodide calls them.
 * @param {Record<string, unknown>} extra
 * @param {(api: any, module: any) => void} [prepare]
 */
async function loadInterpreter(extra, prepare) {
  await grantModuleImport();
  const { default: factory } = await import(pathToFileURL(`${pyodideDir}/pyodide.asm.mjs`).href);
  markPhase("pyodideImport");
  const createPyodideModule = async (/** @type {any} */ settings) => {
    const instantiate = settings.instantiateWasm;
    settings.instantiateWasm = (/** @type {any} */ imports, /** @type {(instance: unknown, module: unknown) => void} */ done) => {
      trustInterpreterModule(interpreterModuleBytes);
      return instantiate(imports, (/** @type {unknown} */ instance, /** @type {unknown} */ module) => {
        trustInterpreterModule(-1);
        markPhase("wasmCompileInstantiate");
        done(instance, module);
      });
    };
    const module = await factory(settings);
    markPhase("emscriptenStart");
    const api = settings.API;
    prepare?.(api, module);
    const finalizeBootstrap = api.finalizeBootstrap;
    api.finalizeBootstrap = (/** @type {unknown[]} */ ...args) => {
      const result = finalizeBootstrap(...args);
      markPhase("pyodideBootstrap");
      return result;
    };
    return module;
  };
  const py = await loadPyodide(loadOptions({ ...extra, createPyodideModule }));
  markPhase(extra._loadSnapshot ? "pyodideSetup" : "interpreterBoot");
  return py;
}

/** Connects the harness's request handler (imported in the snapshot) and keeps the Emscripten module. */
function connectHarness(/** @type {any} */ py) {
  const globals = py.toPy({});
  const connect = py.runPython("import sys\nsys.modules['spade_sandbox'].connect", { globals });
  globals.destroy();
  const handler = connect();
  connect.destroy();
  handle = (json) => handler(json);
  wasm = py._module;
}

/** Runs one harness request (environment code runs: the memory may differ from the base from now on). */
function runHarness(/** @type {string} */ json) {
  dirty = true;
  return handle(json);
}

/** @param {Record<string, unknown>} extra */
function loadOptions(extra) {
  return {
    indexURL: `${pyodideDir}/`,
    jsglobals: Object.create(null),
    env: { HOME: "/home/pyodide", PYTHONHASHSEED: "0" },
    stdin: () => null,
    stdout: captureLoaderOutput,
    stderr: captureLoaderOutput,
    checkAPIVersion: true,
    ...extra,
  };
}

// A game of the harness's own, played once before the child is handed out and then wiped by
// restoring the pristine memory: a process only ever runs one environment, so without this every
// environment would pay for V8 compiling the interpreter's WebAssembly on first use.
const WARM_UP_GAME = `
import json, math, random, re
class WarmUpEnv:
    def __init__(self):
        self.reset()
    def reset(self, seed=None):
        random.seed(seed)
        self.secret = "".join(random.sample("0123456789", 4))
        self.turns = 0
        return f"Guess 4 digits as \\\\boxed{{dddd}} (seed {seed})", {"seed": seed, "rules": ["a", "b"]}
    def step(self, action):
        self.turns += 1
        if action == "raise":
            raise ValueError("warm-up")
        found = re.search(r"\\\\boxed\\{(\\d+)\\}", action)
        guess = found.group(1) if found else ""
        bulls = sum(1 for a, b in zip(guess, self.secret) if a == b)
        done = bulls == 4 or self.turns >= 8
        return f"{bulls} bulls {json.dumps({'t': self.turns})}", float(bulls == 4), done, False, {"bulls": bulls, "sqrt": math.sqrt(self.turns)}
    def hint(self):
        return "Use disjoint digits."
    def solution(self):
        return f"\\\\boxed{{{self.secret}}}"
`;

function warmUp() {
  const ask = (/** @type {Record<string, unknown>} */ request) => runHarness(JSON.stringify(request));
  ask({ op: "open", code: WARM_UP_GAME, maxObservationChars: 65536, maxPrintChars: 65536 });
  for (const seed of [0, 42, 123]) {
    ask({ op: "reset", seed });
    for (let turn = 0; turn < 12; turn++) ask({ op: "step", action: `\\boxed{${1000 + turn * 37}}` });
  }
  ask({ op: "step", action: "raise" });
  ask({ op: "hint" });
  ask({ op: "solution" });
  ask({ op: "close" });
  restoreBase();
  lastRestoreMs = null;
}

/**
 * Puts the base memory back; throws when state outside the memory changed. `changed`: the pages
 * where the memory differs from the base, when just compared (`park()`); else they are found by
 * comparing the memory with the base (none when it is clean). Only those pages are written.
 */
function restoreBase(/** @type {number[] | null} */ changed = null) {
  if (!base) throw new Error("no pristine state");
  const started = realNow();
  const now = fingerprint();
  if (now !== base.fingerprint) throw new Error(`the interpreter cannot be restored (state outside its memory changed: ${now} vs ${base.fingerprint})`);
  const pages = changed ?? (dirty ? changedPages(wasm.HEAPU8, base.memory) : []);
  applyPages(wasm.HEAPU8, base.memory, pages, [], null);
  // State outside the memory that a play can change and the base puts back: the umask, the virtual clock and generator.
  process.umask(base.umask);
  sources.set(base.sources);
  dirty = false;
  lastRestoreMs = realNow() - started;
}

/**
 * How far the interpreter's memory may grow past the pristine base and still be restored for the
 * next play (the engine's `maxKeptGrowthBytes`, given at init). A WebAssembly memory cannot
 * shrink: a process that grew further is not kept (its `close` answers kept: false and the engine
 * ends it, replaced by a fresh one), so an idle sandbox never holds a play's peak, and no restore
 * or base copy ever touches more than this much above the pristine memory (the engine allows for
 * exactly that copy beside the environment's limit).
 */
let maxKeptGrowthBytes = 0;

/** True while the interpreter's memory is within MAX_KEPT_GROWTH_BYTES of the pristine base. */
function withinKeptGrowth() {
  return wasm.HEAPU8.length <= pristineBytes + maxKeptGrowthBytes;
}

/** Makes the current memory (right after an open) the base of every later play, reusing the pristine copy's buffer where it fits. */
function takeBase() {
  // The old base's buffer is written over only when no parked play was parked against it (nor is it the pristine copy).
  const reuse = base !== null && !(recyclable && base === pristine) && ![...parked.values()].some((slot) => slot.against === base);
  // As large as the memory may be kept, so that the next game's base fits it too (only the part written is resident).
  const memory = savePages(wasm.HEAPU8, { into: reuse ? base?.memory.bytes : spareBaseBytes, size: pristineBytes + maxKeptGrowthBytes });
  if (memory.bytes === spareBaseBytes) spareBaseBytes = null;
  base = { memory, fingerprint: fingerprint(), umask: currentUmask(), sources: sources.slice() };
  dirty = false;
}

/** True when the play in the interpreter could be parked: nothing outside the memory changed and the memory is within the kept growth. */
function parkable() {
  return base !== null && fingerprint() === base.fingerprint && withinKeptGrowth();
}

/** The play id a request names (a positive whole number). */
function playOf(/** @type {{ play?: unknown }} */ request) {
  if (!Number.isSafeInteger(request.play) || /** @type {number} */ (request.play) < 1) throw new Error("the request names no play");
  return /** @type {number} */ (request.play);
}

/**
 * Copies the current play's state into its slot: the pages where the memory differs from the base
 * (a play changes few; none, without a comparison, while the memory is clean), at their offsets in
 * the play's buffer. The interpreter then holds nothing anyone may keep using. Returns those pages
 * (the memory is the base but for them), or null when no play was current.
 */
function park() {
  if (current === null) return null;
  if (!parkable() || !base) throw new Error(`play ${current} cannot be parked (state outside the memory changed, or the memory grew past the kept growth)`);
  const pages = dirty ? changedPages(wasm.HEAPU8, base.memory) : [];
  const buffer = playBuffers.get(current) ?? spareBuffers.pop() ?? new Uint8Array(pristineBytes + maxKeptGrowthBytes);
  savePagesAt(wasm.HEAPU8, pages, buffer);
  playBuffers.set(current, buffer);
  parked.set(current, { pages, against: base, sources: sources.slice(), umask: currentUmask() });
  current = null;
  dirty = pages.length > 0;
  return pages;
}

/** Makes `play` the current play: parks the current one and puts `play`'s copy back (the memory past it zeroed, as after a restore of the base). */
function switchTo(/** @type {number} */ play) {
  if (play === current) return;
  const slot = parked.get(play);
  const buffer = playBuffers.get(play);
  if (!slot || !buffer) throw new Error(`play ${play} is not open in this sandbox`);
  const started = realNow();
  const against = slot.against;
  const parkedNow = park();
  /** @type {number[]} */
  let changed = [];
  if (against !== base || !base) {
    // Parked against an earlier base (taken since): that base back in full first.
    restorePages(wasm.HEAPU8, against.memory);
  } else {
    // The memory is the base but for `changed`: only those pages and the play's own are written.
    changed = parkedNow ?? (dirty ? changedPages(wasm.HEAPU8, base.memory) : []);
  }
  applyPages(wasm.HEAPU8, against.memory, changed, slot.pages, buffer);
  process.umask(slot.umask);
  sources.set(slot.sources);
  parked.delete(play);
  current = play;
  dirty = slot.pages.length > 0 || against !== base;
  lastSwitchMs = realNow() - started;
}

/**
 * Whether the child can take another play (and keep its parked ones) after this request: the
 * current play, if any, can be parked. When it cannot, the parked plays can never be put back
 * exactly and are dropped here (the engine fails them on this answer).
 */
function shareable() {
  const can = current === null ? base !== null && fingerprint() === base.fingerprint : parkable();
  if (!can) {
    for (const play of parked.keys()) endBuffer(play);
    parked.clear();
  }
  return can;
}

/** A play is over (closed, or dropped): its buffer is kept for the next play to park. */
function endBuffer(/** @type {number} */ play) {
  const buffer = playBuffers.get(play);
  playBuffers.delete(play);
  if (buffer) spareBuffers.push(buffer);
}

/** @param {{ code: string, maxObservationChars: number, maxPrintChars: number, textCaps: Record<string, number>, maxTurns?: number | null, play?: unknown }} request */
function open(request) {
  if (typeof request.code !== "string") throw new Error("open needs the code");
  if (boundCode !== null && boundCode !== request.code) throw new Error("this sandbox already ran another environment's code");
  const play = playOf(request);
  if (play === current || parked.has(play)) throw new Error(`play ${play} is already open`);
  const maxTurns = request.maxTurns ?? null;
  if (maxTurns !== null && !(Number.isSafeInteger(maxTurns) && maxTurns >= 1)) throw new Error("open's maxTurns must be a whole number of at least 1");
  // The turn limit decides how the class is built and its max_turns: part of what the base holds.
  const limits = JSON.stringify([request.maxObservationChars, request.maxPrintChars, request.textCaps, maxTurns]);
  if (openedBase && openedBase.limits !== limits) throw new Error("this sandbox was opened with other limits");
  let changed = null;
  if (current !== null) {
    const started = realNow();
    changed = park();
    lastSwitchMs = realNow() - started;
  }
  // Also when the memory is clean: the umask and the virtual sources go back with it.
  restoreBase(changed);
  const resetMs = opens > 0 ? lastRestoreMs : null;
  boundCode = request.code;
  opens++;
  current = play;
  if (openedBase) {
    // The base is the memory right after this open: the play starts clean.
    loaderOutput = openedBase.output;
    return { json: openedBase.json, resetMs, fromBase: true };
  }
  reseedSources(0);
  const json = runHarness(JSON.stringify({ op: "open", code: request.code, maxObservationChars: request.maxObservationChars, maxPrintChars: request.maxPrintChars, textCaps: request.textCaps, maxTurns }));
  // From the first reuse on, plays start right after this open (a child that plays once never pays for the copy).
  if (opens >= 2 && withinKeptGrowth() && fingerprint() === base?.fingerprint && JSON.parse(json)?.ok === true) {
    takeBase();
    openedBase = { json, output: loaderOutput, limits };
  }
  return { json, resetMs, fromBase: false };
}

/**
 * The f-string brace repair of `request.code`: parsed only, never run. The interpreter is first
 * put back to its base state when anything ran in it, and is left marked for a restore before
 * its next play. A never-used child is bound to the code the repair produced (its validation
 * plays here next); a bound child only repairs its own code.
 * @param {{ code: string }} request
 */
function repair(request) {
  if (typeof request.code !== "string") throw new Error("repair needs the code");
  if (boundCode !== null && boundCode !== request.code) throw new Error("this sandbox already ran another environment's code");
  if (current !== null || parked.size > 0) throw new Error("repair needs a sandbox with no play open");
  restoreBase();
  const json = runHarness(JSON.stringify({ op: "repair", code: request.code }));
  if (boundCode === null) {
    const answer = JSON.parse(json);
    boundCode = answer?.ok === true && typeof answer.result?.code === "string" ? answer.result.code : request.code;
  }
  return { json, kept: fingerprint() === base?.fingerprint && withinKeptGrowth() };
}

function close(/** @type {number} */ play) {
  switchTo(play);
  const json = runHarness(JSON.stringify({ op: "close" }));
  endBuffer(play);
  current = null;
  // Kept only when the next play can be restored exactly and the memory did not grow too far; then
  // restored right after the reply, unless a parked play comes back next (its switch puts its own copy back).
  const kept = fingerprint() === base?.fingerprint && withinKeptGrowth() && heapGrowth() <= MAX_HEAP_GROWTH_BYTES;
  restoreAfterReply = kept && parked.size === 0;
  return { json, kept };
}

/**
 * Puts the child back to its pristine state for another game: the pristine memory (the memory must
 * not have grown past it), the umask and the virtual sources, with nothing outside the memory
 * changed since (`fingerprint()`); every per-game variable is dropped, the buffers kept for the
 * next game's base and plays. Returns why it cannot, or null when it did: a refused child is ended
 * by the engine.
 */
function recycle() {
  if (!recyclable || !pristine) return "this sandbox was started without recycling";
  if (current !== null || parked.size > 0) return "a play is still open";
  const now = fingerprint();
  if (now !== pristine.fingerprint) return `state outside the interpreter's memory changed (${now} vs ${pristine.fingerprint})`;
  const heap = wasm.HEAPU8;
  if (heap.length !== pristine.memory.length) return `the interpreter's memory grew from ${pristine.memory.length} to ${heap.length} bytes`;
  const grown = heapGrowth();
  if (grown > MAX_HEAP_GROWTH_BYTES) return `the JavaScript heap grew by ${(grown / 1048576).toFixed(1)} MiB past the pristine child's (at most ${MAX_HEAP_GROWTH_BYTES / 1048576} MiB)`;
  restorePages(heap, pristine.memory);
  process.umask(pristine.umask);
  sources.set(pristine.sources);
  if (base !== pristine && base) spareBaseBytes = base.memory.bytes;
  base = pristine;
  openedBase = null;
  boundCode = null;
  opens = 0;
  dirty = false;
  restoreAfterReply = false;
  lastRestoreMs = null;
  lastSwitchMs = null;
  loaderOutput = "";
  for (const play of [...playBuffers.keys()]) endBuffer(play);
  return null;
}

/**
 * Answers one request. The reply is assembled as text around the harness's JSON (which Python's
 * json.dumps writes without newlines), so the child never parses what the environment produced.
 * @param {any} request
 * @returns {string}
 */
function answer(request) {
  loaderOutput = "";
  lastSwitchMs = null;
  const id = Number.isSafeInteger(request?.id) ? request.id : 0;
  /** What every play's answer ends with: whether another play can be taken, and the switch this request cost. */
  const sharing = () => `"shareable":${shareable()},"switchMs":${lastSwitchMs === null ? "null" : lastSwitchMs.toFixed(3)}`;
  try {
    switch (request?.op) {
      case "open": {
        const { json, resetMs, fromBase } = open(request);
        return `{"id":${id},"ok":true,"output":${JSON.stringify(loaderOutput)},"resetMs":${resetMs === null ? "null" : resetMs.toFixed(3)},"fromBase":${fromBase},${sharing()},"reply":${json}}`;
      }
      case "call": {
        if (typeof request.json !== "string") throw new Error("call needs json");
        switchTo(playOf(request));
        // The harness reseeds Python's generators at every reset; the realm's sources follow (the engine wrote this request).
        const call = JSON.parse(request.json);
        if (call?.op === "reset" && Number.isSafeInteger(call.seed)) reseedSources(call.seed);
        const output = JSON.stringify(loaderOutput);
        const json = runHarness(request.json);
        return `{"id":${id},"ok":true,"output":${output},${sharing()},"reply":${json}}`;
      }
      case "close": {
        const { json, kept } = close(playOf(request));
        return `{"id":${id},"ok":true,"output":"","kept":${kept},${sharing()},"reply":${json}}`;
      }
      case "repair": {
        const { json, kept } = repair(request);
        return `{"id":${id},"ok":true,"output":"","kept":${kept},"reply":${json}}`;
      }
      case "recycle": {
        const started = realNow();
        const cpu = cpuUsage();
        const refused = recycle();
        const used = cpuUsage(cpu);
        const timing = `"resetMs":${(realNow() - started).toFixed(3)},"cpuMs":${((used.user + used.system) / 1000).toFixed(3)}`;
        return JSON.stringify({ id, ok: true, recycled: refused === null, output: refused ?? "" }).replace(/}$/, `,${timing}}`);
      }
      case "digest":
        // What the interpreter's memory holds now (a restore after a reply has run): for checks that a restore is exact.
        return JSON.stringify({ id, ok: true, output: "", digest: crypto.createHash("sha256").update(wasm.HEAPU8).digest("hex") });
      default:
        throw new Error(`unknown request ${JSON.stringify(request?.op)}`);
    }
  } catch (error) {
    return JSON.stringify({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
}

const chunk = Buffer.alloc(1 << 20);
let pending = Buffer.alloc(0);

/** Blocks until one request line has arrived; ends the process when the parent closes the pipe. */
function readRequest() {
  for (;;) {
    const newline = pending.indexOf(10);
    if (newline >= 0) {
      const line = pending.subarray(0, newline).toString("utf8");
      pending = pending.subarray(newline + 1);
      return JSON.parse(line);
    }
    if (pending.length > MAX_REQUEST_BYTES) endProcess(4);
    let count = 0;
    try {
      count = readSync(PROTOCOL_FD, chunk, 0, chunk.length, null);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        continue;
      }
      endProcess(0);
    }
    if (count === 0) endProcess(0);
    pending = pending.length === 0 ? Buffer.from(chunk.subarray(0, count)) : Buffer.concat([pending, chunk.subarray(0, count)]);
  }
}

// Only `init` awaits (Pyodide loads asynchronously, before any environment code exists); after
// it, the loop never yields to the event loop again.
const first = readRequest();
try {
  if (first?.op !== "init") throw new Error("the first request must be init");
  const result = await initialize(first);
  sendFrame(JSON.stringify({ id: first.id, ok: true, output: loaderOutput, ...result }));
} catch (error) {
  refuseToRun(`the sandbox could not start: ${error instanceof Error ? error.message : String(error)}`);
}
for (;;) {
  sendFrame(answer(readRequest()));
  if (restoreAfterReply) {
    restoreAfterReply = false;
    try {
      restoreBase();
    } catch {
      // Left dirty: the next open tries again and answers with the reason.
    }
  }
}
