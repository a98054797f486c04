// Electron shell: one hardened window; the engine runs in this (main) process and is reached
// only through the `spade:call` channel checked against the method table.
import { app, BrowserWindow, ipcMain } from "electron";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { defaultWorkspacePath } from "../main/api/defaultWorkspacePath.js";
import type { dispatchCall } from "../main/api/dispatchCall.js";
import type { Workbench } from "../main/api/Workbench.js";
import type { WorkbenchEvent } from "../shared/api/events.js";
import { CALL_CHANNEL, EVENT_CHANNEL } from "../shared/api/wire.js";
import { hardenApp, isAppUrl } from "./hardenWebContents.js";
import { APP_ORIGIN, registerAppScheme, serveAppProtocol } from "./serveAppProtocol.js";
import { windowIconPath } from "./windowIcon.js";

type EngineModule = { Workbench: typeof Workbench };
type DispatchModule = { dispatchCall: typeof dispatchCall };
type WorkspaceModule = { defaultWorkspacePath: typeof defaultWorkspacePath };

registerAppScheme();

/** The tsc-built engine (out/engine) is loaded as it is, not bundled: it spawns its own workers. */
async function loadEngine(root: string) {
  const base = join(root, "out", "engine", "main", "api");
  const engine = (await import(pathToFileURL(join(base, "Workbench.js")).href)) as EngineModule;
  const dispatch = (await import(pathToFileURL(join(base, "dispatchCall.js")).href)) as DispatchModule;
  const workspace = (await import(pathToFileURL(join(base, "defaultWorkspacePath.js")).href)) as WorkspaceModule;
  return { Workbench: engine.Workbench, dispatchCall: dispatch.dispatchCall, defaultWorkspacePath: workspace.defaultWorkspacePath };
}

/** `npm start -- --db <path>` (or `--db=<path>`): the workspace to open; else the same default as `spade serve`. */
function workspaceArgument(argv: string[]): string | undefined {
  const index = argv.findIndex((arg) => arg === "--db" || arg.startsWith("--db="));
  if (index < 0) return undefined;
  const arg = argv[index]!;
  return arg === "--db" ? argv[index + 1] : arg.slice("--db=".length);
}

/**
 * From the sources (`npm start`), better-sqlite3 in node_modules is the Node build the CLI uses;
 * the Electron build lives apart (main/install/nativeBinding.mjs) and reaches the engine's
 * openDatabase as its `nativeBinding` through SPADE_SQLITE_BINDING. A packaged app was rebuilt
 * for Electron in place by electron-builder, so it needs none.
 */
function electronSqliteBinding(root: string): string | undefined {
  if (process.env.SPADE_SQLITE_BINDING || app.isPackaged) return process.env.SPADE_SQLITE_BINDING;
  const stored = join(root, "node_modules", ".spade-native", `electron-${process.versions.modules}`, "better_sqlite3.node");
  return existsSync(stored) ? stored : undefined;
}

async function main(): Promise<void> {
  await app.whenReady();
  const root = app.getAppPath();
  process.env.SPADE_RESOURCES_ROOT ??= root;
  const binding = electronSqliteBinding(root);
  if (binding) process.env.SPADE_SQLITE_BINDING = binding;
  hardenApp(APP_ORIGIN);
  serveAppProtocol(join(root, "out", "renderer"));

  const engine = await loadEngine(root);
  // One default workspace for the window, `spade serve` and the README's CLI examples.
  const workbench = engine.Workbench.open({ dbPath: workspaceArgument(process.argv) ?? engine.defaultWorkspacePath(), shell: "electron" });

  ipcMain.handle(CALL_CHANNEL, async (event, request: unknown) => {
    const frameUrl = event.senderFrame?.url ?? "";
    if (!isAppUrl(frameUrl, APP_ORIGIN)) return { ok: false, error: { name: "Forbidden", message: "calls are accepted from the workbench window only" } };
    const { method, args } = (request ?? {}) as { method?: unknown; args?: unknown };
    return engine.dispatchCall(workbench.api, method, args);
  });
  workbench.events.subscribe((event: WorkbenchEvent) => {
    for (const window of BrowserWindow.getAllWindows()) if (!window.isDestroyed()) window.webContents.send(EVENT_CHANNEL, event);
  });

  const createWindow = () => {
    const window = new BrowserWindow({
      width: 1400,
      height: 900,
      title: "SPADE Workbench",
      icon: windowIconPath(root),
      backgroundColor: "#0d1117",
      webPreferences: {
        preload: join(import.meta.dirname, "..", "preload", "index.cjs"),
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webSecurity: true,
        spellcheck: false,
      },
    });
    void window.loadURL(`${APP_ORIGIN}/index.html#/runs`);
  };
  createWindow();
  app.on("activate", () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
  app.on("window-all-closed", () => {
    if (process.platform !== "darwin") app.quit();
  });
  app.on("will-quit", () => void workbench.close());
}

main().catch((error: unknown) => {
  console.error(error);
  app.exit(1);
});
