// The messages between SandboxProcess (parent) and child/sandboxHost.mjs, and the JSON the
// Python harness (resources/python/spade_sandbox.py) answers with. Everything from the child is
// treated as untrusted input and checked before use.

import type { JsonObject, ToolSchema } from "../../shared/environment.js";
import type { TextCaps } from "./capText.js";

export type ChildRequest =
  | { op: "init"; files: Record<string, string>; snapshotPath: string | null; snapshotHeader: string | null; wantSnapshot: boolean; maxKeptGrowthBytes: number; recyclable: boolean }
  | { op: "open"; code: string; maxObservationChars: number; maxPrintChars: number; textCaps: TextCaps; maxTurns?: number | null; play: number }
  | { op: "call"; json: string; play: number }
  | { op: "close"; play: number }
  | { op: "repair"; code: string }
  | { op: "recycle" }
  | { op: "digest" };

/** A reply frame of the child (checked field by field by SandboxProcess before use). */
export interface ChildReply {
  id: number;
  ok: boolean;
  error?: string;
  /** The harness's answer for open/call/close: checked by SandboxEnvSession. */
  reply?: Record<string, unknown>;
  /** open: ms the last restore of the interpreter took (done right after the previous close; null for the first play). recycle: ms the recycle took. */
  resetMs?: number | null;
  /** open: the session starts from the interpreter as an earlier open of the same code left it (the code did not run again). */
  fromBase?: boolean;
  /** close, repair: the interpreter can be restored exactly for another play of the same code. */
  kept?: boolean;
  /**
   * open, call, close: the child can take another play of its code beside the open ones (the play
   * in the interpreter can be parked: nothing outside the memory changed, the memory within the
   * kept growth). False drops every parked play: their state can no longer be put back exactly.
   */
  shareable?: boolean;
  /** open, call, close: ms this request spent switching plays (parking one, putting another back); null when it switched none. */
  switchMs?: number | null;
  /** recycle: the child is back in its pristine state (false: it refused, `output` says why, and must be ended). */
  recycled?: boolean;
  /** recycle: CPU ms the child used for it. */
  cpuMs?: number;
  /** init: the bytes of the pristine memory's non-zero pages, which is what a copy of it holds resident (the child's copies skip zero pages). */
  pristineResidentBytes?: number;
  /** digest: the SHA-256 (hex) of the interpreter's whole memory. */
  digest?: string;
  /**
   * init: the interpreter was loaded from the snapshot file it was given. False when it booted
   * cold, which leaves it in another state than every process loaded from the snapshot (other
   * `id()`s): the pool never hands such a process out while it has a snapshot.
   */
  fromSnapshot?: boolean;
  /** init: the snapshot the child made (base64), when asked for one. */
  snapshot?: string | null;
  /** init: milliseconds the child took to get its interpreter ready. */
  startMs?: number;
  /** init: bytes of interpreter memory. */
  memoryBytes?: number;
  /** init: where the start went, [phase, CPU ms, wall ms] in order (from the process's own start). */
  phases?: StartPhase[];
  /** Output Pyodide's loader or C-level writes produced during the request. */
  output?: string;
}

/** One phase of a sandbox child's start: its name, the child's CPU ms (all threads) and wall ms. */
export type StartPhase = [name: string, cpuMs: number, wallMs: number];

export interface HarnessError {
  kind: "code" | "contract" | "memory";
  op: string;
  /** For open: "compile", "execute", "find_class", "construct" or "get_tools". */
  stage?: string | null;
  /** For open: the `*Env` class found, once found. */
  className?: string | null;
  exception: string;
  traceback: string;
  line: number | null;
}

export type HarnessResponse<T> = ({ ok: true; result: T } | { ok: false; error: HarnessError }) & { printed: string };

export interface OpenResult {
  className: string;
  kind: "text" | "tool";
  tools: ToolSchema[] | null;
  hasHint: boolean;
}

export interface RawStepResult {
  observation: string;
  /** A finite number (the harness refuses anything else). */
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: JsonObject;
}

export interface CloseResult {
  /** null when the check was left for later. */
  clean: boolean | null;
  difference: string | null;
  closeError: string | null;
}


/** The harness's answer to a brace repair (checked by SandboxPool.repairBraces). */
export interface RepairResult {
  /** The repaired code; null when the repair changed nothing. */
  code: string | null;
  /** Lines rewritten. */
  rounds: number;
  /** The result is known to parse. */
  parses: boolean;
  /** The parser failed other than with a syntax error (e.g. "MemoryError" for a parser stack overflow): the code is unchanged. */
  failure: string | null;
}
