import { homedir } from "node:os";
import { join } from "node:path";

/** Browser mode's workspace: SPADE_WORKSPACE when set, else `~/.spade-workbench/workspace.sqlite`. */
export function defaultWorkspacePath(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.SPADE_WORKSPACE?.trim();
  return fromEnv ? fromEnv : join(homedir(), ".spade-workbench", "workspace.sqlite");
}
