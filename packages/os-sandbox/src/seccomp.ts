/**
 * A seccomp-BPF filter, assembled here as bytes and handed to bubblewrap with `--seccomp <fd>`
 * (no libseccomp, no extra process). It returns EPERM for syscalls a sandboxed tool has no use
 * for and that are common kernel attack surface or sandbox-escape primitives, and blocks the
 * terminal-injection ioctls. Everything else is allowed: the filesystem and network confinement
 * come from the namespaces and mounts, not from this list.
 *
 * Socket families: `socket(AF_VSOCK)` (host/hypervisor channels that no network namespace
 * isolates) is always EPERM; `socket(AF_NETLINK)` is EPERM too (kernel interfaces: audit, uevents,
 * xfrm, nftables), except NETLINK_ROUTE when the filter is built with `allowNetlinkRoute` (the
 * `shared-network` degraded mode, where address enumeration may be wanted). glibc's resolver
 * falls back cleanly when netlink is refused.
 *
 * `socket(AF_UNIX)` is EPERM too unless the filter is built with `allowUnix`: a read-only bind
 * does not stop `connect()` to a socket inode, so a host daemon's socket inside the workspace or
 * a read-only grant (an ssh-agent or docker socket) would otherwise be reachable. `socketpair`
 * is a different syscall and keeps working (programs use it internally); so do inherited
 * descriptors. `allowUnix` is for policies that name `unixSockets`, and for runs whose egress
 * bridge runs inside the sandbox (the launcher there blocks AF_UNIX itself once its bridge is up).
 */

/** CPU architectures with a syscall table here. */
export type SeccompArch = 'x64' | 'arm64';

/** The blocked syscalls, by name. */
export const SECCOMP_BLOCKED: readonly string[] = Object.freeze([
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'mount',
  'umount2',
  'pivot_root',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'unshare',
  'setns',
  'kexec_load',
  'init_module',
  'finit_module',
  'delete_module',
  'acct',
  'swapon',
  'swapoff',
  'reboot',
  'syslog',
  'quotactl',
  'open_by_handle_at',
  'name_to_handle_at',
  'vhangup',
]);

const TABLES: Readonly<
  Record<SeccompArch, { audit: number; ioctl: number; socket: number; nr: Readonly<Record<string, number>> }>
> = {
  x64: {
    audit: 0xc000003e,
    ioctl: 16,
    socket: 41,
    nr: {
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      unshare: 272,
      setns: 308,
      kexec_load: 246,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      acct: 163,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
      syslog: 103,
      quotactl: 179,
      open_by_handle_at: 304,
      name_to_handle_at: 303,
      vhangup: 153,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    ioctl: 29,
    socket: 198,
    nr: {
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      unshare: 97,
      setns: 268,
      kexec_load: 104,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      acct: 89,
      swapon: 224,
      swapoff: 225,
      reboot: 142,
      syslog: 116,
      quotactl: 60,
      open_by_handle_at: 265,
      name_to_handle_at: 264,
      vhangup: 58,
    },
  },
};

/** TIOCSTI (push input into a terminal) and TIOCLINUX (console selection/paste). */
const BLOCKED_IOCTLS = [0x5412, 0x541c];

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
const RET_ENOSYS = 0x00050000 | 38;
const X32_BIT = 0x40000000;
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0_LO = 16; // args[0], low 32 bits (little-endian): socket()'s family is an int
const OFF_ARG1_LO = 16 + 8; // args[1], low 32 bits (little-endian); the kernel's ioctl cmd is 32-bit
const OFF_ARG2_LO = 16 + 16; // args[2], low 32 bits: socket()'s protocol
const AF_UNIX = 1;
const AF_NETLINK = 16;
const AF_VSOCK = 40;
const NETLINK_ROUTE = 0;

/**
 * Maps Node's `process.arch` to a table, or undefined when there is none.
 *
 * @example
 * seccompArchOf(process.arch); // 'x64' on most CI machines
 */
export function seccompArchOf(nodeArch: string): SeccompArch | undefined {
  return nodeArch === 'x64' || nodeArch === 'arm64' ? nodeArch : undefined;
}

/**
 * Assembles the filter for `arch` as little-endian `struct sock_filter[]` bytes. Pure.
 * Foreign-architecture syscalls (e.g. i386 via int 0x80) and the x32 ABI get ENOSYS, so the
 * table cannot be side-stepped by switching syscall numbering.
 *
 * @example
 * const bpf = buildSeccompFilter('x64'); // pass to bwrap: --seccomp <fd>
 * const withSockets = buildSeccompFilter('x64', { allowUnix: true }); // socket(AF_UNIX) allowed
 */
export function buildSeccompFilter(
  arch: SeccompArch,
  options: { allowNetlinkRoute?: boolean; allowUnix?: boolean } = {},
): Buffer {
  const t = TABLES[arch];
  const prog: [number, number, number, number][] = [];
  const ins = (code: number, k: number, jt = 0, jf = 0): void => {
    prog.push([code, jt, jf, k >>> 0]);
  };
  ins(LD_W_ABS, OFF_ARCH);
  ins(JEQ_K, t.audit, 1, 0);
  ins(RET_K, RET_ENOSYS);
  ins(LD_W_ABS, OFF_NR);
  if (arch === 'x64') {
    ins(JGE_K, X32_BIT, 0, 1);
    ins(RET_K, RET_ENOSYS);
  }
  for (const name of SECCOMP_BLOCKED) {
    const nr = t.nr[name];
    if (nr === undefined) throw new Error(`seccomp table ${arch} lacks ${name}`);
    ins(JEQ_K, nr, 0, 1);
    ins(RET_K, RET_EPERM);
  }
  // socket(): the accumulator still holds the syscall number here.
  const sock: [number, number, number, number][] = [];
  const sins = (code: number, k: number, jt = 0, jf = 0): void => {
    sock.push([code, jt, jf, k >>> 0]);
  };
  sins(LD_W_ABS, OFF_ARG0_LO);
  sins(JEQ_K, AF_VSOCK, 0, 1);
  sins(RET_K, RET_EPERM);
  if (!options.allowUnix) {
    sins(JEQ_K, AF_UNIX, 0, 1);
    sins(RET_K, RET_EPERM);
  }
  sins(JEQ_K, AF_NETLINK, 0, options.allowNetlinkRoute ? 3 : 1);
  if (options.allowNetlinkRoute) {
    sins(LD_W_ABS, OFF_ARG2_LO);
    sins(JEQ_K, NETLINK_ROUTE, 1, 0);
  }
  sins(RET_K, RET_EPERM);
  sins(RET_K, RET_ALLOW);
  ins(JEQ_K, t.socket, 0, sock.length);
  prog.push(...sock);
  ins(JEQ_K, t.ioctl, 1, 0);
  ins(RET_K, RET_ALLOW);
  ins(LD_W_ABS, OFF_ARG1_LO);
  for (const cmd of BLOCKED_IOCTLS) {
    ins(JEQ_K, cmd, 0, 1);
    ins(RET_K, RET_EPERM);
  }
  ins(RET_K, RET_ALLOW);
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach(([code, jt, jf, k], i) => {
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k, i * 8 + 4);
  });
  return buf;
}
