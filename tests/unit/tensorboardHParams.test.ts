// The config as hyperparameters through TensorBoard's HParams plugin: the live event file holds a
// session start (the config's leaves), the run's scalars as its metrics, and a session end.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { configHParams } from "../../main/exports/configHParams.js";
import { LiveTensorboard } from "../../main/exports/LiveTensorboard.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createRun } from "../../main/store/queries/runs.js";
import { decodeEvent, readTfRecords } from "../support/tfEvents.js";

let dir: string;
let db: WritableDb;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "spade-hparams-"));
  db = openDatabase(join(dir, "w.sqlite"));
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = parseRunConfig({ db: "w.sqlite", seed: 7, iterations: 3, plays: 4, backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null, reward: { kind: "regret" }, training: null }, "run.json");

describe("TensorBoard hparams", () => {
  it("flattens a config to scalar hyperparameters named by dotted keys", () => {
    expect(configHParams({ a: 1, b: { c: "x", d: { e: true } }, list: [1, 2], none: null, empty: {} })).toEqual({ a: 1, "b.c": "x", "b.d.e": true, list: "[1,2]", none: "null", empty: "{}" });
  });

  it("writes the config as an HParams session start, the metrics as scalars, and a session end, read back from the file", () => {
    const run = createRun(db, { config, seed: 7 });
    const folder = join(dir, "tensorboard", `run-${run.id}`);
    const writer = new LiveTensorboard(folder, db, run.id);
    writer.config(config);
    writer.iteration(0, { validityRate: 1, meanRegret: 0.25 });
    writer.end("completed");
    const events = readdirSync(folder).flatMap((name) => readTfRecords(readFileSync(join(folder, name))).map(decodeEvent));
    const hparams = events.flatMap((event) => event.hparams);
    expect(hparams.map((h) => h.tag)).toEqual(["_hparams_/session_start_info", "_hparams_/session_end_info"]);
    const [start, end] = hparams;
    // The plugin's data version 0 and its empty float vector as the tensor.
    expect(start).toMatchObject({ version: 0, tensor: { dtype: 1, dims: [0] } });
    const values = start!.sessionStartInfo!.hparams;
    expect(values).toMatchObject({ seed: 7, iterations: 3, plays: 4, "backend.kind": "openai", "backend.model": "m", "reward.kind": "regret", corpus: "null", training: "null" });
    expect(values).toEqual(configHParams(config));
    expect(start!.sessionStartInfo!.startTimeSecs).toBeGreaterThan(1.6e9);
    expect(end!.sessionEndInfo).toMatchObject({ status: 1 });
    // The session's metrics: the scalars of the same run folder.
    const scalars = new Map(events.flatMap((event) => event.values));
    expect(scalars.get("spade/validityRate")).toBe(1);
    expect(scalars.get("spade/meanRegret")).toBe(0.25);
  });

  it("ends a failed run's session as a failure", () => {
    const run = createRun(db, { config, seed: 7 });
    const folder = join(dir, "tensorboard", `run-${run.id}`);
    const writer = new LiveTensorboard(folder, db, run.id);
    writer.config(config);
    writer.end("failed");
    const events = readdirSync(folder).flatMap((name) => readTfRecords(readFileSync(join(folder, name))).map(decodeEvent));
    expect(events.flatMap((event) => event.hparams).find((h) => h.sessionEndInfo)?.sessionEndInfo?.status).toBe(2);
  });
});
