import type { Command } from "../Command.js";
import { parseCommandArgs } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const benchCommand: Command = {
  name: "bench",
  usage: "bench [--json] [--only <section,...>]",
  summary: "measure the engine; --json prints one object with a key per section",
  async run(argv) {
    const { values } = parseCommandArgs("bench", argv, { json: { type: "boolean" }, only: { type: "string" } }, false);
    const { benchSections } = await import("../../bench/sections.js"); // heavy (model runtime, browser driver): only when benchmarking
    const names = benchSections.map((section) => section.name);
    const only = values.only?.split(",").map((name) => name.trim()).filter(Boolean);
    for (const name of only ?? []) {
      if (!names.includes(name)) throw new UsageError(`spade bench: --only names unknown section "${name}" (known: ${names.join(", ")})`);
    }
    const result: Record<string, Record<string, number | string | null>> = {};
    for (const section of benchSections) {
      if (only && !only.includes(section.name)) continue;
      process.stderr.write(`bench: ${section.name}...\n`);
      result[section.name] = await section.run((line) => process.stderr.write(`  ${line}\n`));
    }
    if (values.json) process.stdout.write(JSON.stringify(result) + "\n");
    else for (const [name, numbers] of Object.entries(result)) process.stdout.write(`${name}: ${JSON.stringify(numbers, null, 2)}\n`);
    return 0;
  },
};
