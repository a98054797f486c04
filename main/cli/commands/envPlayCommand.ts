import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";
import { readEnvironmentFile } from "./envFile.js";
import { formatPlayReport } from "./envReport.js";

export const envPlayCommand: Command = {
  name: "env play",
  usage: "env play <file.py> --seed <n> [--action <text>]... [--hint] [--json]",
  summary: "play scripted actions (exit 0 ran, 1 the environment raised or timed out, 2 bad arguments)",
  async run(argv) {
    const { values, positionals } = parseCommandArgs("env play", argv, {
      seed: { type: "string", valueName: "n", help: "The environment's seed. (required)" },
      action: { type: "string", multiple: true, valueName: "text", help: "An action to play, in order.", defaultText: "none (only reset)" },
      hint: { type: "boolean", help: "Show the hinted observation." },
      json: { type: "boolean", help: "Print JSON instead of text." },
    });
    const seed = parseIntegerOption("env play", "seed", values.seed);
    if (seed === undefined) throw new UsageError("spade env play: --seed <n> is required");
    if (!Number.isSafeInteger(seed)) throw new UsageError(`spade env play: --seed must be a safe integer, got ${values.seed}`);
    const { code } = readEnvironmentFile("env play", positionals);
    // Loaded here, not at the top: every other command would pay for the sandbox's modules.
    const { SandboxPool } = await import("../../sandbox/SandboxPool.js");
    const { playEnvironment } = await import("../../sandbox/playEnvironment.js");
    const pool = await SandboxPool.create({ size: 1 });
    try {
      const report = await playEnvironment(pool, code, { seed, actions: values.action ?? [], hint: values.hint === true });
      process.stdout.write(values.json ? JSON.stringify(report) + "\n" : formatPlayReport(report));
      return report.error === null ? 0 : 1;
    } finally {
      await pool.dispose();
    }
  },
};
