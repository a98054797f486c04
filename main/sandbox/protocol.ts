// The messages between SandboxProcess (parent) and child/sandboxHost.mjs, and the JSON the
// Python harness (resources/python/spade_sandbox.py) answers with. Everything from the child is
// treated as untrusted input and checked before use.

import type { JsonObject, ToolSchema } from "../../shared/environment.js";

export type ChildRequest =
  | { op: "init"; files: Record<string, string>; snapshot: Uint8Array | null; wantSnapshot: boolean }
  | { op: "open"; code: string; maxObservationChars: number; maxPrintChars: number }
  | { op: "call"; json: string }
  | { op: "close" };

/** A reply of the child: `json` is the harness's answer for open/call/close. */
export interface ChildReply {
  id: number;
  ok: boolean;
  error?: string;
  json?: string;
  /** open: a fresh interpreter was used (not one reused from the same code). */
  fresh?: boolean;
  /** close: the interpreter stays for the same code (clean and untainted). */
  kept?: boolean;
  /** close: why the interpreter was tainted, if it was. */
  taint?: string | null;
  /** init: the snapshot the child made, when asked for one. */
  snapshot?: Uint8Array | null;
  /** init: milliseconds the child took to get its first interpreter ready. */
  startMs?: number;
  /** Output Pyodide's loader or C-level writes produced during the request. */
  output?: string;
}

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
  /** A number, or "nan" / "inf" / "-inf" for non-finite rewards. */
  reward: number | string;
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

/** Decodes the harness's reward encoding. */
export function decodeReward(reward: number | string): number {
  if (typeof reward === "number") return reward;
  if (reward === "nan") return Number.NaN;
  if (reward === "inf") return Number.POSITIVE_INFINITY;
  if (reward === "-inf") return Number.NEGATIVE_INFINITY;
  return Number.NaN;
}
