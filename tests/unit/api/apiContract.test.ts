import { describe, expect, it } from "vitest";
import { createPreloadBridge } from "../../../electron/preloadBridge.js";
import { ApiInputError } from "../../../shared/api/ApiInputError.js";
import { checkCall, methodNames } from "../../../shared/api/methodTable.js";
import type { CallRequest } from "../../../shared/api/wire.js";
import { toWorkbenchEvent } from "../../../main/api/toWorkbenchEvent.js";

describe("method table", () => {
  it("accepts a well-formed call and fills nothing in", () => {
    expect(checkCall("listEnvironments", { runId: 2, valid: true, regretMin: 0.1, limit: 50 })).toEqual({ method: "listEnvironments", input: { runId: 2, valid: true, regretMin: 0.1, limit: 50 } });
    expect(checkCall("listRuns", undefined)).toEqual({ method: "listRuns", input: {} });
    // null and undefined mean "not given" for an optional field.
    expect(checkCall("listAdapters", { runId: null })).toEqual({ method: "listAdapters", input: {} });
    expect(checkCall("downloadModel", { uri: "hf:owner/repo/file.gguf" })).toEqual({ method: "downloadModel", input: { uri: "hf:owner/repo/file.gguf" } });
  });

  it("refuses unknown methods, wrong types and unknown fields, naming the method and field", () => {
    expect(() => checkCall("dropDatabase", {})).toThrow(/unknown method "dropDatabase"/);
    expect(() => checkCall("getRun", { runId: 0 })).toThrow(ApiInputError);
    expect(() => checkCall("getRun", { runId: 0 })).toThrow(/getRun: field "runId" must be an integer in \[1/);
    expect(() => checkCall("getTurns", { episodeId: 1, limit: 5000 })).toThrow(/field "limit"/);
    expect(() => checkCall("setMemoryFlags", { envId: 1, pined: true })).toThrow(/field "pined" must be absent/);
    expect(() => checkCall("startRun", { config: [] })).toThrow(/field "config" must be an object/);
    expect(() => checkCall("getRun", "1")).toThrow(/must be an object/);
    expect(() => checkCall("downloadModel", { uri: "ftp://x" })).toThrow('downloadModel: field "uri" must be a model URI (hf:owner/repo/file.gguf or an http(s) URL), got "ftp://x"');
    expect(() => checkCall("getEnvSet", {})).toThrow('getEnvSet: field "name" is required');
  });
});

describe("preload bridge", () => {
  function bridge() {
    const sent: CallRequest[] = [];
    let listener: ((payload: unknown) => void) | null = null;
    const b = createPreloadBridge({
      invoke: async (request) => {
        sent.push(request);
        return { ok: true, result: "done" };
      },
      listen: (l) => {
        listener = l;
        return () => (listener = null);
      },
    });
    return { b, sent, emit: (payload: unknown) => listener?.(payload), listening: () => listener !== null };
  }

  it("forwards only method-table calls with validated input", async () => {
    const { b, sent } = bridge();
    expect(await b.call("getRun", { runId: 3 })).toEqual({ ok: true, result: "done" });
    expect(sent).toEqual([{ method: "getRun", args: { runId: 3 } }]);
    const refused = await b.call("__proto__", {});
    expect(refused).toMatchObject({ ok: false, error: { name: "ApiInputError" } });
    const bad = await b.call("getRun", { runId: "3" });
    expect(bad.ok).toBe(false);
    expect(sent).toHaveLength(1);
    expect(Object.keys(b).sort()).toEqual(["call", "onEvent"]);
    expect(methodNames).toContain("startPlay");
  });

  it("passes on contract events only, and stops on unsubscribe", () => {
    const { b, emit, listening } = bridge();
    const got: unknown[] = [];
    const stop = b.onEvent((event) => got.push(event));
    emit({ type: "runStatus", runId: 1, status: "paused", error: null });
    emit({ type: "secret", value: 1 });
    emit(null);
    expect(got).toEqual([{ type: "runStatus", runId: 1, status: "paused", error: null }]);
    stop();
    expect(listening()).toBe(false);
  });
});

describe("loop events to workbench events", () => {
  it("maps progress, new environments, iteration ends and statuses; drops the rest", () => {
    expect(toWorkbenchEvent({ type: "slotPhase", runId: 1, iteration: 2, slot: 1, slots: 4, phase: "playing" } as never)).toEqual({ type: "runProgress", runId: 1, iteration: 2, done: 1, total: 4, phase: "playing" });
    expect(toWorkbenchEvent({ type: "environmentAdded", runId: 1, iteration: 0, slot: 0, environmentId: 9, valid: true, className: "X" } as never)).toEqual({ type: "environmentAdded", runId: 1, environmentId: 9, iteration: 0, valid: true });
    expect(toWorkbenchEvent({ type: "iterationCompleted", runId: 1, iteration: 0, metrics: {} } as never)).toEqual({ type: "iterationCompleted", runId: 1, iteration: 0 });
    expect(toWorkbenchEvent({ type: "runStatus", runId: 1, status: "failed", error: "boom" } as never)).toEqual({ type: "runStatus", runId: 1, status: "failed", error: "boom" });
    expect(toWorkbenchEvent({ type: "episodeFinished" })).toBeNull();
  });
});
