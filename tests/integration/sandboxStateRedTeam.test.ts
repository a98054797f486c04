import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnvSession } from "../../main/sandbox/EnvSession.js";
import { readRssBytes } from "../../main/sandbox/processMemory.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import type { SandboxProcess } from "../../main/sandbox/SandboxProcess.js";
import { validateEnvironment } from "../../main/validator/validateEnvironment.js";
import { expectOpensInMode, inRecycledProcess, SANDBOX_PROCESS_MODES } from "../support/sandboxProcessModes.js";
import { createTestPool } from "../support/sandboxTestPool.js";

// The red team's channels through state a game can change outside the interpreter's memory (the
// in-memory file system's files, the streams' flags, nodes and positions, Pyodide's line writers
// in the JavaScript heap) and an uncapped text (tool schemas), each a hostile game, run against
// never-used and recycled processes: no game may change what another game, or another play of
// the same game, observes, is scored or is judged valid.

const PRELUDE = `
import fcntl, hashlib, json, os, struct, sys, zlib
ZIP = next(entry for entry in sys.path if entry.endswith(".zip"))

def attempt(results, name, action):
    try:
        results[name] = "ok: " + repr(action())[:120]
    except BaseException as error:
        results[name] = "blocked: " + type(error).__name__ + ": " + str(error)[:200]
`;

/** Writes a module of its own over colorsys.py's bytes in the standard-library zip, by every road to a write. */
const ZIP_WRITER = `${PRELUDE}
EVIL = b"ATTACK = 'poisoned'\\n"

def colorsys_entry():
    import zipfile
    with zipfile.ZipFile(ZIP) as archive:
        info = archive.getinfo("colorsys.py")
    with open(ZIP, "rb") as stream:
        stream.seek(info.header_offset)
        header = stream.read(30)
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    return info.header_offset + 30 + name_length + extra_length, info.compress_size

def payload(size):
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = deflate.compress(EVIL) + deflate.flush()
    return data + b"\\0" * (size - len(data))

class ZipWriterEnv:
    def reset(self, seed=None):
        results = {}
        offset, size = colorsys_entry()
        fd = os.open(ZIP, os.O_RDONLY)
        attempt(results, "fcntl_setfl", lambda: fcntl.fcntl(fd, fcntl.F_SETFL, os.O_RDWR))
        def write():
            os.lseek(fd, offset, 0)
            return os.write(fd, payload(size))
        attempt(results, "os_write", write)
        attempt(results, "os_pwrite", lambda: os.pwrite(fd, payload(size), offset))
        attempt(results, "ftruncate", lambda: os.ftruncate(fd, 10))
        def mapped():
            import mmap
            view = mmap.mmap(fd, 0, access=mmap.ACCESS_WRITE)
            view[offset:offset + size] = payload(size)
            view.flush()
            view.close()
        attempt(results, "mmap", mapped)
        os.close(fd)
        return json.dumps(results), {}
    def step(self, action):
        return "x", 0.0, True, False, {}
    def solution(self):
        return "x"
`;

/** What a game sees of the standard-library zip: colorsys as imported, and the file's digest. */
const ZIP_READER = `${PRELUDE}
import colorsys

class ColorEnv:
    def reset(self, seed=None):
        with open(ZIP, "rb") as stream:
            digest = hashlib.sha256(stream.read()).hexdigest()
        return json.dumps({"attack": getattr(colorsys, "ATTACK", None), "hsv": colorsys.rgb_to_hsv(0.2, 0.4, 0.6), "zip": digest}), {}
    def step(self, action):
        return "done", 1.0, True, False, {}
    def solution(self):
        return "x"
`;

/** Writes without a newline to descriptors 1 and 2: Pyodide's line writers keep every byte in the JavaScript heap. */
const LINE_WRITER = `${PRELUDE}
class LineWriterEnv:
    def reset(self, seed=None):
        results = {}
        attempt(results, "os_write_stdout", lambda: os.write(1, b"x" * 6_000_000))
        attempt(results, "os_write_stderr", lambda: os.write(2, b"y" * 6_000_000))
        def through_dunder():
            sys.__stdout__.write("z" * 6_000_000)
            sys.__stdout__.flush()
        attempt(results, "dunder_stdout", through_dunder)
        return json.dumps(results), {}
    def step(self, action):
        return "x", 0.0, True, False, {}
    def solution(self):
        return "x"
`;

/**
 * Carries a counter from play to play in the streams: fd 0 closed and reopened on the zip at the
 * counter's position (as many streams as before, no new inode), and bits ORed into fd 1's flags.
 * A game that sees a counter above 0 has seen another play.
 */
const STREAM_COUNTER = `${PRELUDE}
def carried():
    seen = {}
    try:
        seen["position"] = os.lseek(0, 0, os.SEEK_CUR) if os.path.samestat(os.fstat(0), os.stat(ZIP)) else 0
    except OSError:
        seen["position"] = 0
    seen["flags"] = fcntl.fcntl(1, fcntl.F_GETFL) & 0o7777777
    return seen

class CounterEnv:
    def __init__(self):
        self.results = {}
    def reset(self, seed=None):
        seen = carried()
        results = {}
        attempt(results, "setfl", lambda: fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_APPEND))
        attempt(results, "set_blocking", lambda: os.set_blocking(1, False))
        def reopen():
            os.close(0)
            fd = os.open(ZIP, os.O_RDONLY)
            os.lseek(fd, seen["position"] + 1, os.SEEK_SET)
            return fd
        attempt(results, "reopen", reopen)
        return json.dumps({"seen": seen, "tried": sorted(results)}), {}
    def step(self, action):
        return json.dumps(carried()), float(carried()["position"] == 0), True, False, {}
    def solution(self):
        return "x"
`;

/** What a game sees of its descriptors 0 to 2: node, mode, size, flags, position. */
const STREAM_VIEW = `${PRELUDE}
class StreamViewEnv:
    def reset(self, seed=None):
        view = {}
        for fd in (0, 1, 2):
            try:
                status = os.fstat(fd)
                view[fd] = [status.st_ino, status.st_mode, status.st_size, status.st_mtime, fcntl.fcntl(fd, fcntl.F_GETFL)]
            except OSError as error:
                view[fd] = str(error)
            try:
                view[f"{fd}_position"] = os.lseek(fd, 0, os.SEEK_CUR)
            except OSError as error:
                view[f"{fd}_position"] = error.errno
        for path in (ZIP, "/", "/tmp", "/dev/null"):
            status = os.stat(path)
            view[path] = [status.st_ino, status.st_mode, status.st_size, status.st_atime, status.st_mtime, status.st_ctime]
        return json.dumps(view), {}
    def step(self, action):
        return "done", 1.0, True, False, {}
    def solution(self):
        return "x"
`;

/** A tool-use game whose one tool has a 2.4 MB description. */
const HUGE_TOOLS = `
class HugeToolsEnv(ToolUseBaseEnv):
    def get_tools(self):
        return [{"type": "function", "function": {"name": "look", "description": "d" * 2_400_000, "parameters": {"type": "object", "properties": {}}}}]
    def reset(self, seed=None):
        self.turn_count = 0
        self.expected_answer = "1"
        return "Find the number.", {}
    def solution(self):
        return '<tool_call>{"name": "answer", "arguments": {"answer": "1"}}</tool_call>'
    def tool_look(self):
        return "1"
`;

/** The sandbox process a session runs in. */
function processOf(session: EnvSession): SandboxProcess {
  return (session as unknown as { process: SandboxProcess }).process;
}

/** Resident bytes of a sandbox process (the Node child under its launcher). */
function residentBytes(process: SandboxProcess): number {
  return process.pids.reduce((sum, pid) => sum + (readRssBytes(pid) ?? 0), 0);
}

describe.each(SANDBOX_PROCESS_MODES)("the red team's state channels ($mode)", ({ options, recycled }) => {
  let pool: SandboxPool;
  const opens = { all: 0, recycled: 0 };

  /** Opens `code`, counting where it ran; `play` runs with the session, which is closed after. */
  async function withSession<T>(code: string, play: (session: EnvSession) => Promise<T>): Promise<T> {
    const session = await pool.open(code);
    opens.all++;
    if (inRecycledProcess(session)) opens.recycled++;
    try {
      return await play(session);
    } finally {
      await session.close();
    }
  }
  const firstObservation = (code: string) => withSession(code, async (session) => (await session.reset(1)).observation);

  beforeAll(async () => {
    pool = await createTestPool({ size: 1, stepTimeoutMs: 10_000, callTimeoutMs: 60_000, ...options });
  }, 120_000);
  afterAll(async () => {
    await pool?.dispose();
  });

  it("refuses every write to the standard-library zip, and the next game imports the real colorsys", async () => {
    const before = await firstObservation(ZIP_READER);
    expect(JSON.parse(before)).toMatchObject({ attack: null });
    const results = JSON.parse(await firstObservation(ZIP_WRITER)) as Record<string, string>;
    expect(await firstObservation(ZIP_READER)).toBe(before);
    // A game that needs the poisoned module is invalid, as it is alone.
    const needsPoison = ZIP_READER.replace("class ColorEnv", "assert getattr(colorsys, 'ATTACK', None) == 'poisoned'\nclass ColorEnv");
    expect((await validateEnvironment(pool, needsPoison)).valid).toBe(false);
    // Python refuses first and names what it refused; the host's lock holds where Python is bypassed.
    expect(results.fcntl_setfl).toMatch(/^blocked: PermissionError: fcntl\(\d+, F_SETFL\) \(it changes the descriptor\) is not allowed in the SPADE sandbox/);
    expect(results.os_write).toMatch(/^blocked: PermissionError: os.write to descriptor \d+, which the environment did not open for writing/);
    expect(results.os_pwrite).toMatch(/^blocked: PermissionError: os.pwrite to descriptor/);
    expect(results.ftruncate).toMatch(/^blocked: PermissionError: os.truncate is not allowed/);
    expect(results.mmap).toMatch(/^blocked: PermissionError: mmap of descriptor \d+ is not allowed/);
  }, 240_000);

  it("refuses writes to descriptors 1 and 2, so nothing grows Pyodide's line writers for the next game", async () => {
    const baseline = await withSession(STREAM_VIEW, async (session) => (await session.reset(1), residentBytes(processOf(session))));
    const { results, grownBy } = await withSession(LINE_WRITER, async (session) => {
      const observation = JSON.parse((await session.reset(1)).observation) as Record<string, string>;
      return { results: observation, grownBy: residentBytes(processOf(session)) - baseline };
    });
    for (const road of ["os_write_stdout", "os_write_stderr"]) {
      expect(results[road], road).toMatch(/^blocked: PermissionError: os.write to descriptor [12], which the environment did not open for writing, is not allowed in the SPADE sandbox/);
    }
    // Through the interpreter's own file object for descriptor 1: refused by the file system's lock (EPERM).
    expect(results.dunder_stdout).toMatch(/^blocked: PermissionError: /);
    // 18 MB written: kept by the line writers they are 100+ MiB of the JavaScript heap.
    expect(grownBy).toBeLessThan(64 * 1024 * 1024);
  }, 240_000);

  it("gives every play and every validation of a stream-counting game the same start, and the next game pristine streams", async () => {
    const pristine = await firstObservation(STREAM_VIEW);
    const plays: string[] = [];
    for (let play = 0; play < 3; play++) {
      plays.push(await withSession(STREAM_COUNTER, async (session) => JSON.stringify([(await session.reset(1)).observation, (await session.step("a")).observation])));
    }
    expect(new Set(plays).size).toBe(1);
    const first = JSON.parse(JSON.parse(plays[0] ?? "[]")[0] ?? "{}") as { seen: { position: number } };
    expect(first.seen.position).toBe(0);
    const verdicts = [];
    for (let run = 0; run < 2; run++) {
      const { durationMs: _duration, ...verdict } = await validateEnvironment(pool, STREAM_COUNTER);
      verdicts.push(verdict);
    }
    expect(verdicts[1]).toEqual(verdicts[0]);
    expect(await firstObservation(STREAM_VIEW)).toBe(pristine);
  }, 300_000);

  it("refuses a tool schema list past its stored size limit, with the engine's wording, before it is stored or sent", async () => {
    await expect(pool.open(HUGE_TOOLS)).rejects.toThrow(/get_tools\(\) answered \d+ characters of tool schemas as JSON, over the 32768 character limit/);
    const report = await validateEnvironment(pool, HUGE_TOOLS);
    expect(report.valid).toBe(false);
    expect(JSON.stringify(report).length).toBeLessThan(100_000);
  }, 120_000);

  it(recycled ? "ran its games in processes that served another game and were recycled" : "ran its games in never-used processes only", () => {
    expectOpensInMode(pool, opens, recycled);
  });
});
