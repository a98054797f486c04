import type { Command } from "./Command.js";
import { benchCommand } from "./commands/benchCommand.js";
import { compareCommand } from "./commands/compareCommand.js";
import { envsExportCommand } from "./commands/envsExportCommand.js";
import { envsImportCommand } from "./commands/envsImportCommand.js";
import { exportCommand } from "./commands/exportCommand.js";
import { reportCommand } from "./commands/reportCommand.js";
import { runCommand } from "./commands/runCommand.js";
import { serveCommand } from "./commands/serveCommand.js";

/** Every `spade` sub-command, in the order `spade help` lists them. */
export const commands: Command[] = [runCommand, reportCommand, compareCommand, envsExportCommand, envsImportCommand, exportCommand, benchCommand, serveCommand];
