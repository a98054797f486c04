import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
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
 * Host-wide files of /proc (the kernel's and the machine's, the same in every PID namespace): each
 * is covered by an unreadable bind of /dev/null. Node, V8 and libuv start and run without them.
 */
export const HIDDEN_PROC_FILES = [
  "version", "cmdline", "meminfo", "cpuinfo", "stat", "uptime", "loadavg", "vmstat", "zoneinfo", "buddyinfo",
  "pagetypeinfo", "slabinfo", "swaps", "diskstats", "partitions", "interrupts", "softirqs", "iomem", "ioports",
  "devices", "filesystems", "modules", "kallsyms", "keys", "key-users", "crypto", "consoles", "locks", "misc",
  "mtrr", "schedstat", "sched_debug", "timer_list", "kpageflags", "kpagecount", "kpagecgroup", "kcore",
  "sysrq-trigger", "config.gz", "cgroups", "execdomains", "fb", "dma", "latency_stats", "vmallocinfo",
];

/** Host-wide folders of /proc: each is covered by an empty read-only tmpfs. */
export const HIDDEN_PROC_FOLDERS = ["sys", "driver", "acpi", "bus", "fs", "irq", "pressure", "tty", "scsi", "sysvipc", "dynamic_debug"];

/**
 * bubblewrap (Flatpak's sandbox): the child gets its own user, mount, PID, network, IPC, UTS and
 * cgroup namespaces, a root file system holding only the runtime's files (read-only) and what the
 * command names, a private /proc (the child is its PID 1: no bubblewrap process in it whose
 * command line would name the host's folders; the host-wide files and folders covered) and a
 * minimal /dev, no /tmp, no capabilities, a new session, death with its parent, and the seccomp
 * filter of seccompFilter.ts.
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
      "a private /proc: the child is its only process, host-wide files (version, meminfo, cpuinfo, ...) and folders (sys, ...) covered",
      "inherited descriptors closed except the protocol pipe",
      "new session, killed with its parent, no capabilities",
      this.filter ? "seccomp: no sockets, no signals to other processes, no priority or ptrace" : `no seccomp filter (no table for ${process.arch})`,
    ];
  }

  wrap(command: ChildCommand): WrappedCommand {
    const args = [
      "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
      "--as-pid-1", "--uid", NOBODY, "--gid", NOBODY, "--hostname", "spade-sandbox",
      "--proc", "/proc", "--dev", "/dev", "--chdir", "/",
    ];
    for (const name of HIDDEN_PROC_FILES) if (existsSync(`/proc/${name}`)) args.push("--ro-bind", "/dev/null", `/proc/${name}`);
    for (const name of HIDDEN_PROC_FOLDERS) if (existsSync(`/proc/${name}`)) args.push("--tmpfs", `/proc/${name}`, "--remount-ro", `/proc/${name}`);
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
