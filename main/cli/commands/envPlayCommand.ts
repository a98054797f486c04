import { LibraryLoadError } from "../../library/LibraryLoadError.js";
import { parseLibraryProblem } from "../../library/LibraryProblem.js";
import { resolveTrainerPython } from "../../training/resolveTrainerPython.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";
import { readEnvironmentFile } from "./envFile.js";
import { formatPlayReport } from "./envReport.js";

export const envPlayCommand: Command = {
  name: "env play",
  usage: "env play <file.py|problem.json> --seed <n> [--action <text>]... [--hint] [--max-turns <n>] [--library <path>] [--python <path>] [--json]",
  summary: "play scripted actions (exit 0 ran, 1 the environment raised or timed out, 2 bad arguments)",
  async run(argv) {
    const { values, positionals } = parseCommandArgs("env play", argv, {
      seed: { type: "string", valueName: "n", help: "The environment's seed. (required)" },
      action: { type: "string", multiple: true, valueName: "text", help: "An action to play, in order.", defaultText: "none (only reset)" },
      hint: { type: "boolean", help: "Show the hinted observation." },
      "max-turns": { type: "string", valueName: "n", help: "Build the class as a run's plays build it: its own max_turns capped at n.", defaultText: "none (built without arguments)" },
      library: { type: "string", valueName: "path", help: "A stored library problem's library: RLVE's Gym folder, or a folder to import GEM / reasoning-gym from.", defaultText: "installed in the interpreter (RLVE needs it)" },
      python: { type: "string", valueName: "path", help: "The interpreter a library problem runs in.", defaultText: "the trainer's" },
      json: { type: "boolean", help: "Print JSON instead of text." },
    });
    const seed = parseIntegerOption("env play", "seed", values.seed);
    if (seed === undefined) throw new UsageError("spade env play: --seed <n> is required");
    if (!Number.isSafeInteger(seed)) throw new UsageError(`spade env play: --seed must be a safe integer, got ${values.seed}`);
    const maxTurns = parseIntegerOption("env play", "max-turns", values["max-turns"]) ?? null;
    if (maxTurns !== null && !(Number.isSafeInteger(maxTurns) && maxTurns >= 1)) throw new UsageError(`spade env play: --max-turns must be a whole number of at least 1, got ${values["max-turns"]}`);
    const { file, code } = readEnvironmentFile("env play", positionals);
    const problem = parseLibraryProblem(code);
    if (problem) {
      if (problem.library === "rlve" && !values.library) throw new UsageError(`spade env play: ${file} is a stored RLVE problem (${problem.name}, difficulty ${problem.difficulty}); give --library <RLVE's Gym folder> to play it`);
      const { openLibraryProblem } = await import("../../library/openLibraryProblem.js");
      let library;
      try {
        library = await openLibraryProblem(problem, { path: values.library ?? null, python: values.python ?? resolveTrainerPython() });
      } catch (error) {
        if (error instanceof LibraryLoadError) throw new UsageError(`spade env play: ${file}: ${error.message}`);
        throw error;
      }
      try {
        const { playEnvironment } = await import("../../sandbox/playEnvironment.js");
        const report = await playEnvironment({ open: library.open }, code, { seed, actions: values.action ?? [], hint: values.hint === true });
        process.stdout.write(values.json ? JSON.stringify(report) + "\n" : formatPlayReport(report));
        return report.error === null ? 0 : 1;
      } finally {
        await library.dispose();
      }
    }
    if (values.library) throw new UsageError(`spade env play: --library is for a stored library problem (JSON with library, name, difficulty, seed); ${file} is environment code`);
    // Loaded here, not at the top: every other command would pay for the sandbox's modules.
    const { SandboxPool } = await import("../../sandbox/SandboxPool.js");
    const { playEnvironment } = await import("../../sandbox/playEnvironment.js");
    const pool = await SandboxPool.create({ size: 1 });
    try {
      const report = await playEnvironment(pool, code, { seed, actions: values.action ?? [], hint: values.hint === true, maxTurns });
      process.stdout.write(values.json ? JSON.stringify(report) + "\n" : formatPlayReport(report));
      return report.error === null ? 0 : 1;
    } finally {
      await pool.dispose();
    }
  },
};
