import { spawn } from "node:child_process";
import { resourcePath } from "../paths.js";

let pythonMissing = false;

/**
 * The reference's f-string brace repair (see `repairFStringBraces` in extractCode.ts) without
 * blocking the event loop: the loop runs many designer replies and plays at once, and a
 * synchronous child process would stall all of them. Same script, same result; the code comes
 * back unchanged when there is no host `python3` or the script fails.
 */
export function repairBracesAsync(code: string): Promise<string> {
  if (pythonMissing) return Promise.resolve(code);
  return new Promise((resolve) => {
    const child = spawn("python3", [resourcePath("python", "repair_braces.py")], { stdio: ["pipe", "pipe", "ignore"], timeout: 10_000 });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") pythonMissing = true;
      resolve(code);
    });
    child.on("close", (status) => resolve(status === 0 ? output : code));
    child.stdin.on("error", () => undefined);
    child.stdin.end(code);
  });
}
