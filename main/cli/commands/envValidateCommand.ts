import type { Command } from "../Command.js";
import { parseCommandArgs } from "../parseCommandArgs.js";
import { readEnvironmentFile } from "./envFile.js";
import { formatValidationReport } from "./envReport.js";

export const envValidateCommand: Command = {
  name: "env validate",
  usage: "env validate <file.py> [--strict] [--json]",
  summary: "check an environment (exit 0 valid, 1 invalid, 2 unreadable file or bad arguments)",
  async run(argv) {
    const { values, positionals } = parseCommandArgs("env validate", argv, {
      strict: { type: "boolean", help: "This project's extra checks make the game invalid too (the deviation validator.strict); without it they are warnings." },
      json: { type: "boolean", help: "Print the validation report as JSON." },
    });
    const { file, code } = readEnvironmentFile("env validate", positionals);
    // Loaded here, not at the top: every other command would pay for the sandbox's modules.
    const { SandboxPool } = await import("../../sandbox/SandboxPool.js");
    const { validateEnvironment } = await import("../../validator/validateEnvironment.js");
    const pool = await SandboxPool.create({ size: 1 });
    try {
      const report = await validateEnvironment(pool, code, { strict: values.strict === true });
      process.stdout.write(values.json ? JSON.stringify(report) + "\n" : formatValidationReport(file, report));
      return report.valid ? 0 : 1;
    } finally {
      await pool.dispose();
    }
  },
};
