import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import type { ChildCommand, Confinement, WrappedCommand } from "./Confinement.js";
import { buildSeccompFilter, seccompSupported } from "./seccompFilter.js";

/** The user and group the child runs as inside its user namespace. */
const NOBODY = "65534";

/** The shared libraries an executable loads (its dynamic loader included), from `ldd`; null when ldd is missing. */
export function sharedLibraries(executable: string): string[] | null {
  const result = spawnSync("ldd", [executable], { encoding: "utf8", timeout: 10_000, env: {} });
  if (result.status !== 0) return null;
  const paths = new Set<string>();
  for (const line of result.stdout.split("\n")) {
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line);
    if (match?.[1]) paths.add(match[1]);
  }
  return [...paths];
}

/**
 * bubblewrap (Flatpak's sandbox): the child gets its own user, mount, PID, network, IPC, UTS and
 * cgroup namespaces, a root file system holding only the runtime's files (read-only) and what the
 * command names, a private /proc and a minimal /dev, no /tmp, no capabilities, a new session,
 * death with its parent, and the seccomp filter of seccompFilter.ts.
 */
export class BubblewrapConfinement implements Confinement {
  readonly name = "bubblewrap";
  readonly confined = true;
  readonly layers: string[];
  private readonly runtimeFiles: string[];
  private readonly filter: Buffer | null;

  constructor(
    private readonly bwrap: string,
    executable: string = process.execPath,
  ) {
    const real = realpathSync(executable);
    const libraries = sharedLibraries(real) ?? ["/lib", "/lib64", "/usr/lib", "/usr/lib64"];
    // Electron keeps its ICU data and V8 snapshots next to the binary.
    this.runtimeFiles = [real, ...libraries, ...(process.versions.electron ? [dirname(real)] : [])];
    this.filter = seccompSupported() ? buildSeccompFilter() : null;
    this.layers = [
      "bubblewrap: own user, mount, PID, network, IPC, UTS and cgroup namespaces",
      "only the runtime's files, read-only; no host /tmp, no host sockets, no other processes",
      "inherited descriptors closed except the protocol pipe",
      "new session, killed with its parent, no capabilities",
      this.filter ? "seccomp: no sockets, no signals to other processes, no priority or ptrace" : `no seccomp filter (no table for ${process.arch})`,
    ];
  }

  wrap(command: ChildCommand): WrappedCommand {
    const args = [
      "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
      "--uid", NOBODY, "--gid", NOBODY, "--hostname", "spade-sandbox",
      "--proc", "/proc", "--dev", "/dev", "--chdir", "/",
    ];
    const seen = new Set<string>();
    for (const path of [...this.runtimeFiles, ...command.readOnlyPaths]) {
      if (seen.has(path)) continue;
      seen.add(path);
      args.push("--ro-bind", path, path);
    }
    for (const [name, value] of Object.entries(command.env)) args.push("--setenv", name, value);
    const extraInputs: Buffer[] = [];
    if (this.filter) {
      args.push("--seccomp", "4");
      extraInputs.push(this.filter);
    }
    args.push("--", realpathSync(command.executable), ...command.args);
    return { command: this.bwrap, args, env: {}, extraInputs };
  }
}
