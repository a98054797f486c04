import type { Command } from "../Command.js";
import { parseCommandArgs } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const benchCommand: Command = {
  name: "bench",
  usage: "bench [--json] [--only <section,...>]",
  summary: "measure the engine; --json prints one object with a key per section (a section that cannot run: {skipped, reason})",
  async run(argv) {
    const { values } = parseCommandArgs("bench", argv, { json: { type: "boolean", help: "Print one JSON object with a key per section (skipped sections carry their reason)." }, only: { type: "string", valueName: "section,...", help: "Run only these sections.", defaultText: "every section" } }, false);
    const { benchSections } = await import("../../bench/sections.js"); // heavy (model runtime, browser driver): only when benchmarking
    const names = benchSections.map((section) => section.name);
    const only = values.only?.split(",").map((name) => name.trim()).filter(Boolean);
    for (const name of only ?? []) {
      if (!names.includes(name)) throw new UsageError(`spade bench: --only names unknown section "${name}" (known: ${names.join(", ")})`);
    }
    const { runBenchSections } = await import("../../bench/runBenchSections.js");
    const chosen = benchSections.filter((section) => !only || only.includes(section.name));
    const { result, failed } = await runBenchSections(chosen, (section, line) => process.stderr.write(`bench ${section}: ${line}\n`));
    if (values.json) process.stdout.write(JSON.stringify(result) + "\n");
    else for (const [name, numbers] of Object.entries(result)) process.stdout.write(`${name}: ${JSON.stringify(numbers, null, 2)}\n`);
    if (failed.length > 0) {
      process.stderr.write(`bench: ${failed.join(", ")} failed (reported as skipped with the reason); the other sections' numbers are above\n`);
      return 1;
    }
    return 0;
  },
};
