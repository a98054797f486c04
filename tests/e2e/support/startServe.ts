// Runs the real `spade serve` CLI on a workspace and reads its one address line.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export interface ServeProcess {
  url: string;
  origin: string;
  token: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const root = join(import.meta.dirname, "..", "..", "..");
export const spadeCli = join(root, "out", "engine", "main", "cli", "spade.js");
export const rendererBuilt = () => existsSync(join(root, "out", "renderer", "index.html"));

/** `env`: variables added to this process's for the server (e.g. SPADE_PYTHON). */
export async function startServe(dbPath: string, env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [spadeCli, "serve", "--db", dbPath], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`spade serve printed no address in 20 s; stderr: ${stderr}`)), 20_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const newline = stdout.indexOf("\n");
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(stdout.slice(0, newline));
      }
    });
    child.on("exit", (code) => reject(new Error(`spade serve exited with ${code}: ${stderr}`)));
  });
  const match = /^SPADE Workbench at (http:\/\/127\.0\.0\.1:(\d+))\/\?token=(\S+)$/.exec(line);
  if (!match) throw new Error(`unexpected address line: ${JSON.stringify(line)}`);
  return {
    url: line.slice("SPADE Workbench at ".length),
    origin: match[1]!,
    token: match[3]!,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
