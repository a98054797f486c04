import { resolve } from "node:path";
import { defaultWorkspacePath } from "../../api/defaultWorkspacePath.js";
import { Workbench } from "../../api/Workbench.js";
import { PortInUseError } from "../../server/PortInUseError.js";
import { isValidToken, readServerState, serverStatePath, writeServerState } from "../../server/serverState.js";
import { startServer } from "../../server/startServer.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";

export const serveCommand: Command = {
  name: "serve",
  usage: "serve [--db <path>] [--port <n>] [--token <text>] [--new-token]",
  summary: "serve the workbench UI and API on 127.0.0.1 (prints the address with its token)",
  async run(argv) {
    const { values } = parseCommandArgs(
      "serve",
      argv,
      {
        db: { type: "string", valueName: "path", help: "Workspace database; the window (`npm start`) uses the same default.", defaultText: "SPADE_WORKSPACE, else ~/.spade-workbench/workspace.sqlite" },
        port: { type: "string", valueName: "n", help: "Port on 127.0.0.1 (0: any free port); a taken port is an error.", defaultText: "the last port used with this workspace when it is free, else a free one" },
        token: { type: "string", valueName: "text", help: "The access token in the address (16+ URL-safe characters); not stored.", defaultText: "SPADE_TOKEN, else the token remembered with this workspace, else a new one" },
        "new-token": { type: "boolean", help: "Forget the remembered token and make a new one (old bookmarks stop working)." },
      },
      false,
    );
    const port = parseIntegerOption("serve", "port", values.port);
    if (port !== undefined && (port < 0 || port > 65535)) throw new UsageError(`spade serve: --port must be in 0..65535, got ${port}`);
    const given = values.token ?? (process.env.SPADE_TOKEN?.trim() || undefined);
    if (given !== undefined && !isValidToken(given)) {
      throw new UsageError(`spade serve: ${values.token !== undefined ? "--token" : "SPADE_TOKEN"} must be 16 to 256 characters of A-Z a-z 0-9 . _ ~ -, got ${given.length} characters`);
    }
    const dbPath = resolve(values.db ?? defaultWorkspacePath());
    const remembered = readServerState(dbPath);
    const token = given ?? (values["new-token"] ? undefined : remembered.token);
    const workbench = Workbench.open({ dbPath, shell: "browser" });
    let server;
    try {
      server = await startServer({
        workbench,
        ...(port !== undefined ? { port } : remembered.port !== undefined ? { preferredPort: remembered.port } : {}),
        ...(token !== undefined ? { token } : {}),
        portOption: "--port",
        addressHint: `Find the line “SPADE Workbench at http://127.0.0.1:…/?token=…” in the terminal where \`spade serve\` or \`npm start\` runs, or stop it and start it again on the same workspace: it keeps this port when free and its token (stored in ${serverStatePath(dbPath)}) and prints the address again.`,
      });
    } catch (error) {
      await workbench.close();
      if (error instanceof PortInUseError) throw new UsageError(`spade serve: ${error.message}`);
      throw error;
    }
    if (remembered.port !== undefined && port === undefined && server.port !== remembered.port) {
      process.stderr.write(`spade serve: port ${remembered.port} (used last time) is taken; serving on ${server.port} instead\n`);
    }
    try {
      writeServerState(dbPath, { port: server.port, ...(given === undefined ? { token: server.token } : remembered.token && !values["new-token"] ? { token: remembered.token } : {}) });
    } catch (error) {
      process.stderr.write(`spade serve: cannot remember the port and token in ${serverStatePath(dbPath)} (${(error as Error).message}); the next start gets new ones\n`);
    }
    // The handlers go in before the address is printed: a caller that stops the server as soon
    // as it reads the line must find them installed.
    const stopped = new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    process.stdout.write(`SPADE Workbench at ${server.url}\n`);
    await stopped;
    await server.close();
    await workbench.close();
    return 0;
  },
};
