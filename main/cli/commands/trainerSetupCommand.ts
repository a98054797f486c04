import { managedPythonDir } from "../../training/resolveTrainerPython.js";
import { setupTrainerPython } from "../../training/setupTrainerPython.js";
import { TrainerSetupError } from "../../training/TrainerSetupError.js";
import type { Command } from "../Command.js";
import { parseCommandArgs } from "../parseCommandArgs.js";

export const trainerSetupCommand: Command = {
  name: "trainer setup",
  usage: "trainer setup [--hf] [--dir <path>] [--python <path>] [--index-url <url>] [--json]",
  summary: "create the trainer's Python environment (venv + torch, NumPy, gguf; --hf adds transformers and PEFT) through pip",
  async run(argv) {
    const { values } = parseCommandArgs(
      "trainer setup",
      argv,
      {
        hf: { type: "boolean", help: "Also install transformers and PEFT (the hf trainer)." },
        dir: { type: "string", valueName: "path", help: "Where the venv goes (discovery looks only at the default).", defaultText: managedPythonDir() },
        python: { type: "string", valueName: "path", help: "The Python 3 the venv is made from.", defaultText: "python3" },
        "index-url": { type: "string", valueName: "url", help: "pip's package index (a mirror).", defaultText: "pip's own (PyPI)" },
        json: { type: "boolean", help: "Print the result (or the failure) as JSON; pip's output goes to stderr either way." },
      },
      false,
    );
    try {
      const setup = await setupTrainerPython({ dir: values.dir, basePython: values.python, hf: values.hf ?? false, indexUrl: values["index-url"] ?? null, onLog: (line) => process.stderr.write(line + "\n") });
      if (values.json) process.stdout.write(JSON.stringify({ ok: true, ...setup }) + "\n");
      else process.stdout.write(`trainer environment ready: ${setup.python} (${setup.packages.join(", ")}); check it with \`spade trainer check\`\n`);
      return 0;
    } catch (error) {
      if (!(error instanceof TrainerSetupError)) throw error;
      if (values.json) process.stdout.write(JSON.stringify({ ok: false, step: error.step, error: error.message }) + "\n");
      process.stderr.write(error.message + "\n");
      return 1;
    }
  },
};
