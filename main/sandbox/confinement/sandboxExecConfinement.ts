import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import type { ChildCommand, Confinement, WrappedCommand } from "./Confinement.js";

/** Escapes a path for a string literal of the sandbox profile language. */
function literal(path: string): string {
  return `"${path.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/**
 * macOS: the child runs under a `sandbox-exec` profile that denies everything by default, then
 * allows reading the runtime and the named paths, and nothing of the network, other processes or
 * file writes. macOS has no namespaces: other processes stay visible, and sandbox-exec is
 * deprecated by Apple (still present in current releases). Not exercised by the tests here.
 */
export class SandboxExecConfinement implements Confinement {
  readonly name = "sandbox-exec";
  readonly confined = true;
  readonly layers = [
    "sandbox-exec profile: deny by default; read-only access to the runtime and the sandbox files",
    "no network, no file writes, no process creation, no signals to other processes",
  ];

  wrap(command: ChildCommand): WrappedCommand {
    const executable = realpathSync(command.executable);
    const reads = [dirname(executable), "/usr/lib", "/System/Library", "/private/var/db/timezone", ...command.readOnlyPaths];
    const profile = [
      "(version 1)",
      "(deny default)",
      `(allow process-exec (literal ${literal(executable)}))`,
      "(allow process-fork (with no-report))",
      "(deny process-fork)",
      "(allow signal (target self))",
      "(allow sysctl-read)",
      "(allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\"))",
      `(allow file-read* ${reads.map((path) => `(subpath ${literal(path)})`).join(" ")} (literal "/") (literal "/dev/null") (literal "/dev/urandom"))`,
      "(allow file-read-metadata)",
      "(allow file-write-data (literal \"/dev/null\"))",
      "(deny network*)",
    ].join("\n");
    return { command: "/usr/bin/sandbox-exec", args: ["-p", profile, executable, ...command.args], env: command.env, extraInputs: [] };
  }
}
