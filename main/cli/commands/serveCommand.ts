import { defaultWorkspacePath } from "../../api/defaultWorkspacePath.js";
import { Workbench } from "../../api/Workbench.js";
import { startServer } from "../../server/startServer.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const serveCommand: Command = {
  name: "serve",
  usage: "serve [--db <path>] [--port <n>]",
  summary: "serve the workbench UI and API on 127.0.0.1 (prints the address with its token)",
  async run(argv) {
    const { values } = parseCommandArgs("serve", argv, { db: { type: "string" }, port: { type: "string" } }, false);
    const port = parseIntegerOption("serve", "port", values.port) ?? 0;
    if (port < 0 || port > 65535) throw new UsageError(`spade serve: --port must be in 0..65535, got ${port}`);
    const dbPath = values.db ?? defaultWorkspacePath();
    const workbench = Workbench.open({ dbPath, shell: "browser" });
    const server = await startServer({ workbench, port });
    process.stdout.write(`SPADE Workbench at ${server.url}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    await server.close();
    await workbench.close();
    return 0;
  },
};
