import type { Command } from "./Command.js";
import { adaptersCommand } from "./commands/adaptersCommand.js";
import { benchCommand } from "./commands/benchCommand.js";
import { compareCommand } from "./commands/compareCommand.js";
import { envPlayCommand } from "./commands/envPlayCommand.js";
import { envSessionCommand } from "./commands/envSessionCommand.js";
import { envsExportCommand } from "./commands/envsExportCommand.js";
import { envsImportCommand } from "./commands/envsImportCommand.js";
import { envValidateCommand } from "./commands/envValidateCommand.js";
import { evalCommand } from "./commands/evalCommand.js";
import { exportCommand } from "./commands/exportCommand.js";
import { reportCommand } from "./commands/reportCommand.js";
import { runCommand } from "./commands/runCommand.js";
import { serveCommand } from "./commands/serveCommand.js";
import { trainCommand } from "./commands/trainCommand.js";
import { trainerCheckCommand } from "./commands/trainerCheckCommand.js";
import { trainerSetupCommand } from "./commands/trainerSetupCommand.js";

/** Every `spade` sub-command, in the order `spade help` lists them. */
export const commands: Command[] = [runCommand, reportCommand, compareCommand, envValidateCommand, envPlayCommand, envSessionCommand, envsExportCommand, envsImportCommand, exportCommand, trainCommand, trainerSetupCommand, trainerCheckCommand, evalCommand, adaptersCommand, benchCommand, serveCommand];
