import type { CommandTemplate } from "../../shared/runConfig.js";
import { TrainerCommandError } from "./TrainerCommandError.js";

/** A command ready to spawn. */
export interface RenderedCommand {
  /** argv form: the program and its arguments (no shell). */
  argv: string[] | null;
  /** Shell form: one command line for the platform shell. */
  shellCommand: string | null;
  /** How the command reads in logs and the adapter registry. */
  display: string;
}

const placeholder = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

/**
 * Fills `{name}` placeholders. An argv template is rendered element by element and run without a
 * shell, so values need no quoting; a string template runs in the shell and every value is
 * single-quoted first. A placeholder not in `values` is an error naming it (a typo would otherwise
 * reach the trainer as literal text).
 */
export function renderTrainerCommand(template: CommandTemplate, values: Readonly<Record<string, string>>, where = "trainer.command"): RenderedCommand {
  const fill = (text: string, quote: (value: string) => string) =>
    text.replace(placeholder, (_, name: string) => {
      const value = values[name];
      if (value === undefined) throw new TrainerCommandError(`${where}: unknown placeholder {${name}} (known: ${Object.keys(values).map((key) => `{${key}}`).join(", ")})`);
      return quote(value);
    });
  if (typeof template === "string") {
    const shellCommand = fill(template, shellQuote);
    return { argv: null, shellCommand, display: shellCommand };
  }
  const argv = template.map((part) => fill(part, (value) => value));
  return { argv, shellCommand: null, display: argv.map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : shellQuote(part))).join(" ") };
}

/** POSIX single quoting: safe for any value, including spaces, quotes and `$`. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
