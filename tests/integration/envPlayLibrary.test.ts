// `spade env play` on a stored library problem (the JSON a library environment keeps in its code
// column): the RLVE-shaped test library plays it in a worker of the real interpreter, and a
// problem or flag that cannot be played is a usage error that says why.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { envPlayCommand } from "../../main/cli/commands/envPlayCommand.js";
import { runCommand } from "../support/runCommand.js";
import { LibraryHost } from "../../main/library/LibraryHost.js";
import { formatLibraryProblem } from "../../main/library/LibraryProblem.js";
import { resolveTrainerPython } from "../../main/training/resolveTrainerPython.js";
import { fillLibrary } from "../../shared/libraryConfig.js";

const gym = resolve(import.meta.dirname, "../fixtures/libraries/rlve/Gym");
const python = resolveTrainerPython();
let dir: string;
let problemFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-env-play-library-"));
  const host = await LibraryHost.start({ library: fillLibrary({ kind: "rlve", path: gym, set: ["Multiplication"] }, "test"), python });
  try {
    problemFile = join(dir, "problem.json");
    writeFileSync(problemFile, formatLibraryProblem(await host.problem("Multiplication", 1, 77)));
  } finally {
    await host.dispose();
  }
});
afterAll(() => vi.restoreAllMocks());

function play(argv: string[]): Promise<{ code: number; stdout: string }> {
  return runCommand(envPlayCommand, argv);
}

describe("spade env play on a stored library problem", () => {
  it("plays the problem with its library and scores the answer with the library's reward", async () => {
    const first = await play([problemFile, "--seed", "3", "--library", gym, "--json"]);
    expect(first.code).toBe(0);
    const observation = (JSON.parse(first.stdout) as { reset: { observation: string } }).reset.observation;
    const [, a, b] = /What is (\d+) times (\d+)\?/.exec(observation)!;
    const right = await play([problemFile, "--seed", "3", "--library", gym, "--action", `\\boxed{${Number(a) * Number(b)}}`, "--json"]);
    expect(JSON.parse(right.stdout)).toMatchObject({ steps: [{ reward: 1, terminated: true }], return: 1, error: null });
  }, 120_000);

  it("asks for --library for an RLVE problem, and refuses --library for environment code", async () => {
    await expect(envPlayCommand.run([problemFile, "--seed", "0"])).rejects.toThrow(`spade env play: ${problemFile} is a stored RLVE problem (Multiplication, difficulty 1); give --library <RLVE's Gym folder> to play it`);
    const code = join(dir, "game.py");
    writeFileSync(code, "class GameEnv:\n    pass\n");
    await expect(envPlayCommand.run([code, "--seed", "0", "--library", gym])).rejects.toThrow("--library is for a stored library problem");
    await expect(envPlayCommand.run([problemFile, "--seed", "0", "--library", join(dir, "nowhere")])).rejects.toThrow(/spade env play: .*problem\.json: .*nowhere/);
  }, 120_000);
});
