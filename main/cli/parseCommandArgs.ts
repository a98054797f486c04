import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./UsageError.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** `util.parseArgs` in strict mode, with its errors turned into a UsageError naming the command. */
export function parseCommandArgs<T extends Options>(command: string, argv: string[], options: T, allowPositionals = true) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError(`spade ${command}: ${(error as Error).message}`);
  }
}

/** Parses an integer option, refusing anything that is not a whole number. */
export function parseIntegerOption(command: string, option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) {
    throw new UsageError(`spade ${command}: --${option} expects a whole number, got "${value}"`);
  }
  return Number.parseInt(value, 10);
}
