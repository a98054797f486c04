#!/usr/bin/env node
// The `spade` command line: headless access to the engine.
import type { Command } from "./Command.js";
import { commands } from "./commands.js";
import { HelpRequest } from "./HelpRequest.js";
import { NotAWorkspaceError } from "../store/NotAWorkspaceError.js";
import { UsageError } from "./UsageError.js";

function helpText(): string {
  const lines = ["usage: spade <command> [options]", "", "commands:"];
  for (const command of commands) lines.push(`  ${command.usage.padEnd(60)} ${command.summary}`);
  return lines.join("\n");
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    process.stdout.write(helpText() + "\n");
    return argv.length === 0 ? 2 : 0;
  }
  // Longest match first, so `env validate` wins over a hypothetical `env`.
  const sorted = [...commands].sort((a, b) => b.name.split(" ").length - a.name.split(" ").length);
  for (const command of sorted) {
    const words = command.name.split(" ");
    if (words.every((word, i) => argv[i] === word)) {
      return runCommand(command, argv.slice(words.length));
    }
  }
  // A command group (`spade env`, `spade envs`, `spade adapters`): its --help lists its subcommands.
  const group = commands.filter((command) => command.name.split(" ")[0] === argv[0] && command.name.includes(" "));
  if (group.length > 0 && (argv[1] === undefined || argv[1] === "--help" || argv[1] === "-h")) {
    const text = [`usage: spade ${argv[0]} <subcommand> [options]`, "", "subcommands:", ...group.map((command) => `  ${command.usage.padEnd(60)} ${command.summary}`)].join("\n");
    if (argv[1] === undefined) throw new UsageError(`spade ${argv[0]}: a subcommand is required\n\n${text}`);
    process.stdout.write(text + "\n");
    return 0;
  }
  throw new UsageError(`spade: unknown command "${argv.slice(0, 2).join(" ")}"\n\n${helpText()}`);
}

// A reader that stops early (`spade report | head -2`) closes the pipe: that is the end, not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

/** Runs one command; its `--help` prints the usage, the summary and the options, and exits 0. */
async function runCommand(command: Command, argv: string[]): Promise<number> {
  try {
    return await command.run(argv);
  } catch (error) {
    if (!(error instanceof HelpRequest)) throw error;
    process.stdout.write(`usage: spade ${command.usage}\n\n${command.summary}\n\noptions:\n${error.optionsText}\n`);
    return 0;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A --db that is not a workspace is a bad argument too (exit 2), as the README says.
    if (error instanceof UsageError || error instanceof NotAWorkspaceError) {
      process.stderr.write(error.message + "\n");
      process.exitCode = 2;
    } else {
      const err = error as Error;
      process.stderr.write(`spade: ${err.message ?? String(error)}\n`);
      if (process.env.SPADE_DEBUG) process.stderr.write(`${err.stack ?? ""}\n`);
      process.exitCode = 1;
    }
  },
);
