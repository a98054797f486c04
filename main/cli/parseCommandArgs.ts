import { parseArgs, type ParseArgsConfig } from "node:util";
import { HelpRequest } from "./HelpRequest.js";
import { UsageError } from "./UsageError.js";

type ParseOption = NonNullable<ParseArgsConfig["options"]>[string];

/** What `--help` prints about one option, declared next to its type. */
export interface OptionHelp {
  /** One line saying what the option does. */
  help?: string;
  /** The value's placeholder in the help text, e.g. "path". Defaults to "value" for strings. */
  valueName?: string;
  /** The default as the help text states it, e.g. "~/.spade/workspace.sqlite". Defaults to none shown. */
  defaultText?: string;
}

/** A command's option: `util.parseArgs`'s descriptor plus its help. */
export type CommandOption = ParseOption & OptionHelp;
export type CommandOptions = Record<string, CommandOption>;

/**
 * `util.parseArgs` in strict mode, with its errors turned into a UsageError naming the command.
 * `--help` / `-h` anywhere before `--` throws a HelpRequest listing the options instead (the CLI
 * prints it and exits 0), so every command's options are declared once, here, with their help.
 */
export function parseCommandArgs<T extends CommandOptions>(command: string, argv: string[], options: T, allowPositionals = true) {
  const end = argv.indexOf("--");
  const head = end >= 0 ? argv.slice(0, end) : argv;
  if (head.includes("--help") || head.includes("-h")) throw new HelpRequest(command, describeOptions(options));
  try {
    // parseArgs reads type/short/multiple/default and ignores the help fields.
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError(`spade ${command}: ${(error as Error).message}`);
  }
}

/** The options part of a command's help: one line per option, with its default. */
export function describeOptions(options: CommandOptions): string {
  const rows = Object.entries(options).map(([name, option]) => {
    const short = option.short ? `-${option.short}, ` : "";
    const value = option.type === "string" ? ` <${option.valueName ?? "value"}>` : "";
    const repeat = option.multiple ? " (repeatable)" : "";
    const fallback = option.defaultText ?? (option.default !== undefined ? String(option.default) : option.type === "boolean" ? "false" : undefined);
    const text = [option.help ?? "", fallback !== undefined ? `Defaults to ${fallback}.` : ""].filter(Boolean).join(" ");
    return [`${short}--${name}${value}${repeat}`, text] as const;
  });
  rows.push(["-h, --help", "Print this help and exit."]);
  const width = Math.min(36, Math.max(...rows.map(([flag]) => flag.length)) + 2);
  return rows.map(([flag, text]) => `  ${flag.padEnd(Math.max(width, flag.length + 2))}${text}`).join("\n");
}

/** Parses an integer option, refusing anything that is not a whole number. */
export function parseIntegerOption(command: string, option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) {
    throw new UsageError(`spade ${command}: --${option} expects a whole number, got "${value}"`);
  }
  return Number.parseInt(value, 10);
}
