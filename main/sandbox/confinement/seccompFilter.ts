// A classic-BPF seccomp program for the sandbox child, written out byte by byte (what
// libseccomp would compile), so that bubblewrap can load it with `--seccomp FD`.
//
// Policy: every system call is allowed except the ones below, which fail with EPERM; a call made
// with another architecture's calling convention (or the x32 ABI) kills the process, so the
// table cannot be sidestepped by switching ABI.

/** Why each refused call is refused (documentation, and the names the tests use). */
export const REFUSED_SYSCALLS = {
  // No sockets of any family (the protocol pipe is inherited, never opened), no new peers.
  network: ["socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "sendmsg", "sendmmsg", "recvmsg", "recvmmsg"],
  // io_uring can open sockets and files without the calls above being made.
  ioUring: ["io_uring_setup", "io_uring_enter", "io_uring_register"],
  // No signals to anything but its own threads (tgkill stays for the runtime's own use).
  signals: ["kill", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal", "pidfd_getfd"],
  // No changing the priority or scheduling of any process, no looking into other processes.
  otherProcesses: ["setpriority", "ioprio_set", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "migrate_pages", "move_pages"],
  // No new namespaces, mounts or roots (the sandbox's own are fixed before the program starts).
  namespaces: ["unshare", "setns", "mount", "umount2", "pivot_root", "chroot"],
  // Kernel-wide facilities no environment needs.
  kernel: [
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key", "init_module", "finit_module",
    "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "acct", "syslog", "personality",
    "open_by_handle_at", "name_to_handle_at", "mknodat",
  ],
} as const;

/** Calls allowed only when their first argument (a process id) is 0, i.e. the calling process itself. */
export const SELF_ONLY_SYSCALLS = ["prlimit64", "sched_setparam", "sched_setscheduler", "sched_setaffinity"] as const;

type SyscallName = (typeof REFUSED_SYSCALLS)[keyof typeof REFUSED_SYSCALLS][number] | (typeof SELF_ONLY_SYSCALLS)[number];

interface Architecture {
  /** AUDIT_ARCH_* of <linux/audit.h>. */
  audit: number;
  /** x86-64 also accepts the x32 ABI: system call numbers with bit 30 set. */
  x32Bit: boolean;
  numbers: Record<SyscallName, number>;
}

const X86_64: Architecture = {
  audit: 0xc000003e,
  x32Bit: true,
  numbers: {
    socket: 41, connect: 42, accept: 43, sendmsg: 46, recvmsg: 47, bind: 49, listen: 50, socketpair: 53, accept4: 288,
    recvmmsg: 299, sendmmsg: 307, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, kill: 62, tkill: 200,
    rt_sigqueueinfo: 129, rt_tgsigqueueinfo: 297, pidfd_open: 434, pidfd_send_signal: 424, pidfd_getfd: 438,
    setpriority: 141, ioprio_set: 251, ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, kcmp: 312,
    migrate_pages: 256, move_pages: 279, unshare: 272, setns: 308, mount: 165, umount2: 166, pivot_root: 155, chroot: 161,
    bpf: 321, perf_event_open: 298, userfaultfd: 323, keyctl: 250, add_key: 248, request_key: 249, init_module: 175,
    finit_module: 313, delete_module: 176, kexec_load: 246, kexec_file_load: 320, reboot: 169, swapon: 167, swapoff: 168,
    acct: 163, syslog: 103, personality: 135, open_by_handle_at: 304, name_to_handle_at: 303, mknodat: 259,
    prlimit64: 302, sched_setparam: 142, sched_setscheduler: 144, sched_setaffinity: 203,
  },
};

// The generic table (asm-generic/unistd.h). Written from the kernel headers; only x86-64 is
// exercised by the tests on this project's machines.
const AARCH64: Architecture = {
  audit: 0xc00000b7,
  x32Bit: false,
  numbers: {
    socket: 198, socketpair: 199, bind: 200, listen: 201, accept: 202, connect: 203, sendmsg: 211, recvmsg: 212,
    accept4: 242, recvmmsg: 243, sendmmsg: 269, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
    kill: 129, tkill: 130, rt_sigqueueinfo: 138, rt_tgsigqueueinfo: 240, pidfd_open: 434, pidfd_send_signal: 424,
    pidfd_getfd: 438, setpriority: 140, ioprio_set: 30, ptrace: 117, process_vm_readv: 270, process_vm_writev: 271,
    kcmp: 272, migrate_pages: 238, move_pages: 239, unshare: 97, setns: 268, mount: 40, umount2: 39, pivot_root: 41,
    chroot: 51, bpf: 280, perf_event_open: 241, userfaultfd: 282, keyctl: 219, add_key: 217, request_key: 218,
    init_module: 105, finit_module: 273, delete_module: 106, kexec_load: 104, kexec_file_load: 294, reboot: 142,
    swapon: 224, swapoff: 225, acct: 89, syslog: 116, personality: 92, open_by_handle_at: 265, name_to_handle_at: 264,
    mknodat: 33, prlimit64: 261, sched_setparam: 118, sched_setscheduler: 119, sched_setaffinity: 122,
  },
};

const ARCHITECTURES: Record<string, Architecture> = { x64: X86_64, arm64: AARCH64 };

// <linux/filter.h> and <linux/seccomp.h>.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
// struct seccomp_data: nr, arch, instruction_pointer, args[6] (little-endian u64).
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;
const OFFSET_ARG0_HIGH = 20;

type Target = "allow" | "allowAfterCheck" | "deny" | "kill" | "next" | `self:${string}`;
interface Instruction {
  code: number;
  k: number;
  jt?: Target;
  jf?: Target;
}

/** True when a filter can be built for this CPU. */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch in ARCHITECTURES;
}

/** All refused system call names, in table order. */
export function refusedSyscallNames(): string[] {
  return Object.values(REFUSED_SYSCALLS).flat();
}

/**
 * The compiled filter: `struct sock_filter` records (u16 code, u8 jt, u8 jf, u32 k),
 * little-endian, ready for `bwrap --seccomp FD`.
 */
export function buildSeccompFilter(arch: string = process.arch): Buffer {
  const table = ARCHITECTURES[arch];
  if (!table) throw new Error(`no seccomp filter for the ${arch} architecture (supported: ${Object.keys(ARCHITECTURES).join(", ")})`);
  const program: Array<Instruction & { label?: string }> = [
    { code: LD_W_ABS, k: OFFSET_ARCH },
    { code: JEQ_K, k: table.audit, jt: "next", jf: "kill" },
    { code: LD_W_ABS, k: OFFSET_NR },
  ];
  if (table.x32Bit) program.push({ code: JGE_K, k: 0x40000000, jt: "kill", jf: "next" });
  for (const name of refusedSyscallNames()) program.push({ code: JEQ_K, k: table.numbers[name as SyscallName], jt: "deny", jf: "next" });
  for (const name of SELF_ONLY_SYSCALLS) program.push({ code: JEQ_K, k: table.numbers[name], jt: `self:${name}`, jf: "next" });
  program.push({ code: RET_K, k: RET_ALLOW, label: "allow" });
  for (const name of SELF_ONLY_SYSCALLS) {
    program.push(
      { code: LD_W_ABS, k: OFFSET_ARG0_LOW, label: `self:${name}` },
      { code: JEQ_K, k: 0, jt: "next", jf: "deny" },
      { code: LD_W_ABS, k: OFFSET_ARG0_HIGH },
      { code: JEQ_K, k: 0, jt: "allowAfterCheck", jf: "deny" },
    );
  }
  // BPF only jumps forward: the shared returns come last.
  program.push(
    { code: RET_K, k: RET_ERRNO | EPERM, label: "deny" },
    { code: RET_K, k: RET_KILL_PROCESS, label: "kill" },
    { code: RET_K, k: RET_ALLOW, label: "allowAfterCheck" },
  );
  const labels = new Map(program.flatMap((instruction, index) => (instruction.label ? [[instruction.label, index] as const] : [])));
  const offset = (from: number, target: Target | undefined): number => {
    if (target === undefined || target === "next") return 0;
    const to = labels.get(target);
    if (to === undefined || to <= from) throw new Error(`seccomp filter: bad jump to ${target}`);
    const distance = to - from - 1;
    if (distance > 255) throw new Error(`seccomp filter: jump to ${target} is too far (${distance})`);
    return distance;
  };
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(offset(index, instruction.jt), index * 8 + 2);
    bytes.writeUInt8(offset(index, instruction.jf), index * 8 + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return bytes;
}
