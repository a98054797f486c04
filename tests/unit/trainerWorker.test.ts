// TrainerWorker's protocol handling against scripted workers (Node scripts standing in for Python):
// strict parsing, errors with their round, protocol violations, exits, and log text.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseTrainerMessage } from "../../main/training/trainerProtocol.js";
import { trainerAllocatorEnv } from "../../main/training/trainerAllocatorEnv.js";
import { TrainerWorker } from "../../main/training/TrainerWorker.js";
import { TrainerWorkerError } from "../../main/training/TrainerWorkerError.js";

const scratch = mkdtempSync(join(tmpdir(), "spade-trainer-worker-"));

/** A worker script: `ready`, then for each command line the answers `answer(cmd)` returns. */
function fakeWorker(name: string, body: string): string {
  const path = join(scratch, `${name}.mjs`);
  writeFileSync(
    path,
    `import { createInterface } from "node:readline";
const say = (o) => process.stdout.write((typeof o === "string" ? o : JSON.stringify(o)) + "\\n");
${body}
createInterface({ input: process.stdin }).on("line", (line) => { const cmd = JSON.parse(line); if (cmd.type === "shutdown") { say({ type: "done", round: null }); process.exit(0); } answer(cmd); });
`,
  );
  return path;
}

const start = (script: string, logs: string[] = []) => TrainerWorker.start({ python: process.execPath, script, onLog: (line) => logs.push(line) });
const request = { round: 3, batch: "b.jsonl", baseModel: "m.gguf", output: "a.gguf" };
const metrics = { loss: 0.5, meanRatio: 1, maxRatio: 1.2, clippedFraction: 0, kl: 0, gradNorm: 0.3, tokens: 10, seconds: 0.1 };

describe("parseTrainerMessage", () => {
  it("reads protocol lines, leaves other text to the log, and refuses a known type with wrong fields", () => {
    expect(parseTrainerMessage('{"type":"progress","round":1,"step":2,"steps":4,"loss":0.1}')).toEqual({ type: "progress", round: 1, step: 2, steps: 4, loss: 0.1 });
    expect(parseTrainerMessage("loading the model")).toBeNull();
    expect(parseTrainerMessage('{"type":"note","x":1}')).toBeNull();
    expect(parseTrainerMessage("{not json")).toBeNull();
    expect(() => parseTrainerMessage('{"type":"progress","round":1,"step":"2","steps":4,"loss":0.1}')).toThrow(/malformed "progress" line \(step: /);
    expect(() => parseTrainerMessage('{"type":"metrics","round":1,"metrics":{"loss":1}}')).toThrow(/metrics\.meanRatio/);
  });
});

describe("TrainerWorker", () => {
  it("runs a train command: progress, mismatch, metrics and adapter; log text goes to onLog", async () => {
    const script = fakeWorker(
      "good",
      `say({ type: "ready", trainer: "gguf", architecture: "llama" });
function answer(cmd) {
  say("some log text");
  say({ type: "mismatch", meanAbsDiff: 0.001, maxAbsDiff: 0.01, tokens: 10 });
  say({ type: "progress", round: cmd.round, step: 1, steps: 1, loss: 0.5 });
  say({ type: "metrics", round: cmd.round, metrics: ${JSON.stringify(metrics)} });
  say({ type: "adapter", round: cmd.round, path: cmd.output });
  say({ type: "done", round: cmd.round });
}`,
    );
    const logs: string[] = [];
    const worker = await start(script, logs);
    expect(worker.architecture).toBe("llama");
    const progress: number[] = [];
    const result = await worker.train(request, { onProgress: (p) => progress.push(p.step) });
    expect(result).toEqual({ round: 3, adapterPath: "a.gguf", metrics, mismatch: { type: "mismatch", meanAbsDiff: 0.001, maxAbsDiff: 0.01, tokens: 10 } });
    expect(progress).toEqual([1]);
    expect(logs).toContain("some log text");
    await worker.dispose();
    expect(worker.alive).toBe(false);
  });

  it("starts the worker with glibc's mmap threshold fixed (the memory model's allocator), which a trainer's own env overrides", async () => {
    const script = fakeWorker("allocator", `say("threshold " + process.env.MALLOC_MMAP_THRESHOLD_);
say({ type: "ready", trainer: "gguf", architecture: null });
function answer() {}`);
    const logs: string[] = [];
    const worker = await start(script, logs);
    await worker.dispose();
    expect(logs).toContain(`threshold ${trainerAllocatorEnv.MALLOC_MMAP_THRESHOLD_}`);
    expect(trainerAllocatorEnv.MALLOC_MMAP_THRESHOLD_).toBe("131072");
    const own: string[] = [];
    const overridden = await TrainerWorker.start({ python: process.execPath, script, env: { MALLOC_MMAP_THRESHOLD_: "65536" }, onLog: (line) => own.push(line) });
    await overridden.dispose();
    expect(own).toContain("threshold 65536");
  });

  it("rejects a refused command with its message and round, and goes on with the next", async () => {
    const script = fakeWorker(
      "refuses",
      `say({ type: "ready", trainer: "gguf", architecture: null });
let n = 0;
function answer(cmd) {
  if (n++ === 0) { say({ type: "error", round: cmd.round, message: "refusing to train: too different" }); say({ type: "done", round: cmd.round }); return; }
  say({ type: "metrics", round: cmd.round, metrics: ${JSON.stringify(metrics)} }); say({ type: "adapter", round: cmd.round, path: "x" }); say({ type: "done", round: cmd.round });
}`,
    );
    const worker = await start(script);
    const refused = worker.train(request);
    await expect(refused).rejects.toThrow(TrainerWorkerError);
    await expect(refused).rejects.toMatchObject({ message: "refusing to train: too different", round: 3 });
    expect((await worker.train(request)).adapterPath).toBe("x");
    await worker.dispose();
  });

  it("treats a malformed protocol line as a broken worker: the call rejects and the process is killed", async () => {
    const script = fakeWorker("broken", `say({ type: "ready", trainer: "gguf", architecture: null });\nfunction answer(cmd) { say({ type: "progress", round: cmd.round, step: -1 }); }`);
    const worker = await start(script);
    await expect(worker.train(request)).rejects.toThrow(/the trainer broke the line protocol: malformed "progress" line/);
    await expect(worker.train(request)).rejects.toThrow(TrainerWorkerError);
    await worker.waitForExit();
    expect(worker.alive).toBe(false);
  });

  it("rejects when the worker dies mid-command, with its last log line", async () => {
    const script = fakeWorker("dies", `say({ type: "ready", trainer: "gguf", architecture: null });\nfunction answer() { process.stderr.write("CUDA out of memory\\n"); process.exit(3); }`);
    const worker = await start(script);
    await expect(worker.train(request)).rejects.toThrow(/the trainer exited \(code 3\): CUDA out of memory/);
  });

  it("fails to start with the worker's reason when it never says ready", async () => {
    const script = fakeWorker("noready", `say({ type: "error", round: null, message: "base.gguf: not a GGUF file" }); process.exit(2);\nfunction answer() {}`);
    await expect(start(script)).rejects.toThrow(/the trainer exited \(code 2\): base\.gguf: not a GGUF file/);
  });
});
