import { TrustError } from '@trust/core';
import type { HostFacts, PathFact } from './host-facts.js';
import type { SandboxPolicy } from './policy.js';
import { planProtected, planUnixSockets } from './bwrap-protect.js';
import { ETC_FILES, protectedEntriesOf, SENSITIVE_ROOTS, USRMERGE_DIRS } from './protected-paths.js';

/** Where things live inside a Linux sandbox. */
export const SANDBOX_LAYOUT = Object.freeze({
  home: '/sandbox/home',
  tmp: '/tmp',
  launcher: '/sandbox/launcher',
  /** The launcher of a prepared run, as the descriptor the spawn server hands bwrap (see `awaitCommand`). */
  awaitLauncher: '/proc/self/fd/6',
  egressSocket: '/sandbox/egress.sock',
});

/** The file descriptor the seccomp program is passed on (fd 3 carries the `--args` options). */
export const SECCOMP_FD = 4;

/** The resource limits the launcher applies with setrlimit(2), as `name=value`. */
export type Rlimit = readonly [name: 'as' | 'nofile' | 'nproc' | 'fsize' | 'core' | 'cpu', value: number];

/** Everything a Linux plan needs besides the policy and argv; gathered by the executor. */
export interface LinuxPlanContext {
  readonly facts: HostFacts;
  /** The complete sandbox environment (see `buildSandboxEnv`). */
  readonly env: Readonly<Record<string, string>>;
  /** Working directory inside the sandbox; must be a granted path or the sandbox home. */
  readonly cwd: string;
  /** Host path of the compiled launcher; used when `rlimits` or `egress` are set. */
  readonly launcher?: string;
  /** Without a launcher: socat (bridge) and prlimit (limits) paths visible inside the sandbox. */
  readonly fallback?: { readonly socat?: string; readonly prlimit?: string };
  /**
   * The run's egress-proxy unix socket on the host, and the loopback port it is bridged to (TCP;
   * with `udp`, the same port number for UDP as well, carried as a datagram channel; needs the
   * launcher). With `outside`, the host-side launcher makes the run's network namespace and
   * serves the bridge from outside the sandbox (`LinuxPlan.bridges`, the launcher's `--netns`):
   * bwrap shares that namespace, and neither the socket nor the launcher is bound in.
   */
  readonly egress?: {
    readonly socketPath: string;
    readonly port: number;
    readonly udp?: boolean;
    readonly outside?: boolean;
  };
  readonly rlimits?: readonly Rlimit[];
  /**
   * Host paths of an empty read-only file and an empty read-only directory, mounted over
   * protected and hidden paths. (A /dev/null bind would accept writes silently: writes to a
   * device node are not stopped by a read-only mount.)
   */
  readonly empty: { readonly file: string; readonly dir: string };
  /** Run with the host network namespace (only with the `shared-network` degraded mode). */
  readonly shareNetwork?: boolean;
  /**
   * The host-side launcher makes the run's network namespace (loopback only; plus the bridges
   * with `egress.outside`, which implies it) and bwrap shares it (`--share-net`), so the spawn
   * server can make it ahead of the run. Ignored with `shareNetwork`.
   */
  readonly launcherNetwork?: boolean;
  /** Load the seccomp filter that the executor writes to fd 4 (see `buildSeccompFilter`). */
  readonly seccomp?: boolean;
  /** Skip the private /proc (only with the `no-proc` degraded mode). */
  readonly noProc?: boolean;
  /**
   * The uid/gid the command sees inside the user namespace (`--uid`/`--gid`). Set to 65534 when
   * the host runs as root, so the command is not uid 0 (and never regains capabilities on exec)
   * inside its namespace. `undefined`: bubblewrap's default, the host ids.
   */
  readonly runAs?: { readonly uid: number; readonly gid: number };
  /**
   * `.git` entries (directories or gitfiles) of repositories nested below writable roots, found
   * at spawn by a `createNestedGitScanner` scan; each is bound read-only. `undefined`/`[]`: none.
   */
  readonly nestedGit?: readonly string[];
  /**
   * Leave the read-only binds of protected paths and nested `.git` entries to the host-side
   * launcher (`LinuxPlan.pins`) instead of bwrap options: it makes them in a private namespace
   * before bwrap starts, about twenty times cheaper per path (see the launcher's `--pin`).
   */
  readonly pinProtected?: boolean;
  /**
   * A host directory (empty, private to this sandbox) on which the host-side launcher stages the
   * base of the sandbox (`LinuxPlan.rootStage`, its `--stage-root`): /usr, the usrmerge entries,
   * the short /etc, /dev as bwrap's `--dev` would make it, the empty /tmp, /var/tmp, home and
   * /run. bwrap then binds it as its root with one option, where it would make some twenty mounts
   * and re-read the mount table for each bind. /etc stays bwrap binds when a grant, system root or
   * hidden path lies inside /etc (bwrap could not make its mount point in the read-only stage).
   */
  readonly stageRoot?: string;
  /**
   * Plan a run prepared before its command is known (the spawn server's `prepare`): bwrap runs
   * the launcher in the sandbox with `--await`, which takes the command, environment and working
   * directory later, so the plan has no `--chdir` or `--setenv` and ignores `argv`, `env` and
   * `cwd`. Needs `launcher`.
   */
  readonly awaitCommand?: boolean;
  /**
   * With `pinProtected`: writable roots (`roots`) whose missing protected names the launcher
   * makes exist only in the run's mount namespace, as an overlay whose upper layer is the root
   * and whose lower layer (a tmpfs of the run) holds the missing names as empty entries; the
   * overlay's work directory goes below its `workBase` (on the root's filesystem, outside it).
   * No placeholder is created in these roots (`LinuxPlan.overlays`). `undefined`: none.
   */
  readonly overlay?: {
    /** Each overlaid writable root, and the directory its overlay work directories go below. */
    readonly roots: readonly { readonly root: string; readonly workBase: string }[];
    /**
     * Read-only grants and system roots seen through a read-only overlay of their own, so that no
     * socket inode in them can be connected to (with `unixSockets`, which allows AF_UNIX; the
     * named sockets are bound back from the real inode). `undefined`/`[]`: none.
     */
    readonly readOnlyRoots?: readonly string[];
  };
}

/**
 * A read-only bind the host-side launcher makes before bwrap starts: the empty file or directory
 * over `path` (`f`/`d`, a placeholder), or `path` over itself (`s`; `F`/`D` for a protected file or
 * directory, which becomes a placeholder if it has gone by then).
 */
export interface LinuxPin {
  readonly kind: 'f' | 'd' | 's' | 'F' | 'D';
  readonly path: string;
}

/**
 * A root the launcher overlays in the run's namespace: writable (missing protected names), or read-only (no socket
 * reachable).
 */
export type LinuxOverlay =
  | { readonly kind: 'rw'; readonly root: string; readonly workBase: string }
  | { readonly kind: 'ro'; readonly root: string };

/** One mount of a staged root (see `LinuxPlanContext.stageRoot`), at `dest` inside it. */
export type LinuxRootOp =
  | { readonly kind: 'bind'; readonly src: string; readonly dest: string }
  | { readonly kind: 'symlink'; readonly target: string; readonly dest: string }
  | { readonly kind: 'tmpfs'; readonly dest: string };

/** A loopback port in the run's network namespace relayed to the host unix socket `socketPath`. */
export interface LinuxBridge {
  readonly type: 'tcp' | 'udp';
  readonly port: number;
  readonly socketPath: string;
}

/** A Linux plan: the bwrap arguments and the host placeholders bwrap will create. */
export interface LinuxPlan {
  readonly platform: 'linux';
  /** Absolute path of bubblewrap. */
  readonly file: string;
  /** Every bwrap argument: `options`, then `--`, then `command`. */
  readonly args: readonly string[];
  /** The options, sent NUL-separated through `--args <fd>` (no argv size cap, values not in `ps`). */
  readonly options: readonly string[];
  /** What runs inside: the launcher (when needed) and the caller's argv. */
  readonly command: readonly string[];
  /**
   * Host paths that do not exist yet and become read-only mount points (protected files inside
   * writable roots). bwrap (or, with `pinProtected`, the launcher) creates them as empty files or
   * directories; the launcher removes them after the run. Never those of the roots in `overlays`,
   * whose missing names exist only inside the run.
   */
  readonly placeholders: readonly { readonly path: string; readonly type: 'file' | 'dir' }[];
  /**
   * The roots the launcher overlays (see `LinuxPlanContext.overlay`), parents first; the launcher's `--pin-overlay`.
   */
  readonly overlays: readonly LinuxOverlay[];
  /**
   * With `overlays`: the policy's `unixSockets`, which the launcher binds back from their real inodes (`--pin-socket`).
   */
  readonly socketPins: readonly string[];
  /** With `pinProtected`: the protected binds, in order, for the launcher; otherwise empty (they are bwrap options). */
  readonly pins: readonly LinuxPin[];
  /**
   * With `egress.outside`: the bridges the host-side launcher serves in the run's network
   * namespace (`--netns --bridge`/`--udp-bridge`); otherwise empty (they run inside).
   */
  readonly bridges: readonly LinuxBridge[];
  /** Whether the launcher makes the run's network namespace (`--netns`; see `launcherNetwork`). */
  readonly launcherNetwork: boolean;
  /**
   * With `stageRoot`: the directory, its mounts in order (read-only binds, symlinks, tmpfs), and
   * the /etc files staged at `<dir>/etc` (undefined when a policy path lies in /etc); /dev is
   * staged at `<dir>/dev`. Undefined without `stageRoot`.
   */
  readonly rootStage?: {
    readonly dir: string;
    readonly ops: readonly LinuxRootOp[];
    readonly etcFiles?: readonly string[];
  };
  readonly env: Readonly<Record<string, string>>;
}

const PRLIMIT_NAMES = { as: 'as', nofile: 'nofile', nproc: 'nproc', fsize: 'fsize', core: 'core', cpu: 'cpu' } as const;

/** The bwrap options that make `op` (when bwrap makes the base itself). */
function bwrapOptions(op: LinuxRootOp): string[] {
  switch (op.kind) {
    case 'bind':
      return ['--ro-bind', op.src, op.dest];
    case 'symlink':
      return ['--symlink', op.target, op.dest];
    case 'tmpfs':
      return ['--tmpfs', op.dest];
  }
}

/**
 * The socat fallback bridge (used only when the launcher cannot be compiled): a constant script;
 * the caller's argv arrives as "$@" after three fixed arguments. It busy-waits until the
 * listener shows up in /proc/net/tcp (state 0A), then execs the command.
 */
export const SOCAT_BRIDGE_SCRIPT =
  's=$1; p=$2; u=$3; shift 3; "$s" TCP-LISTEN:"$p",bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:"$u" & ' +
  'h=$(printf "%04X" "$p"); i=0; until grep -q ":$h 00000000:0000 0A" ' +
  '/proc/net/tcp; do i=$((i+1)); [ $i -gt 100000 ] && exit 125; done; exec "$@"';

function launcherMissing(): TrustError {
  return new TrustError(
    'SANDBOX_UNAVAILABLE',
    'network bridging and resource limits need the sandbox launcher (or socat/prlimit), and neither is available',
    {
      hint:
        'install a C compiler (Debian: apt-get install gcc libc6-dev) or socat and ' +
        'util-linux, or remove limits and the http/tcp capabilities',
    },
  );
}

export const fact = (facts: HostFacts, path: string): PathFact => facts.paths[path] ?? { kind: 'missing' };
const denySymlink = (path: string) =>
  new TrustError(
    'SANDBOX_GRANT_SYMLINK',
    `the deny entry fs:none:${path} is a symlink; a mount would land on its target`,
    {
      hint: `name the real path in "fs:none:..." (or remove the symlink at ${path})`,
    },
  );
const within = (root: string, path: string): boolean => root === '/' || path === root || path.startsWith(`${root}/`);
export const depthSort = (a: string, b: string): number =>
  a.split('/').length - b.split('/').length || a.localeCompare(b);

/**
 * The writable directories between an outer fs entry and a nested one (`/a/x` for `fs:rw:/a` with
 * `fs:none:/a/x/s`). Each is bound over itself so that it is a mount point (rename and rmdir get
 * EBUSY): a run that could rename it away and put a decoy in its place would move the next run's
 * nested entry onto the decoy (a deny entry then hiding the decoy, the real directory visible
 * under the new name).
 */
function pinnedBetween(policy: SandboxPolicy): string[] {
  const caps = policy.capabilities;
  const entries = new Set(caps.fsGrants.map((g) => g.path));
  const out = new Set<string>();
  for (const e of caps.fsGrants) {
    const segs = e.path.split('/');
    for (let i = 2; i < segs.length; i++) {
      const p = segs.slice(0, i).join('/');
      if (entries.has(p)) continue;
      const inside = caps.fsGrants.some((o) => o.path !== p && within(o.path, p));
      if (inside && caps.fsGrant(p).access === 'rw') out.add(p);
    }
  }
  return [...out];
}

/**
 * The host paths whose facts a Linux plan for `policy` reads.
 *
 * @example
 * const facts = await collectPathFacts(linuxPathsOfInterest(policy, process.env.HOME));
 */
export function linuxPathsOfInterest(policy: SandboxPolicy, home?: string): string[] {
  const out = [
    ...USRMERGE_DIRS,
    ...SENSITIVE_ROOTS,
    ...policy.hiddenPaths,
    ...policy.unixSockets,
    ...(home ? [home] : []),
  ];
  out.push(...pinnedBetween(policy));
  for (const g of policy.capabilities.fsGrants) {
    out.push(g.path);
    if (g.mode !== 'rw') continue;
    for (const e of protectedEntriesOf(policy)) out.push(`${g.path}/${e.name}`);
    out.push(`${g.path}/.git`);
  }
  return out;
}

/**
 * Plans a bubblewrap invocation. Pure: the same inputs always give the same argv.
 *
 * Layout: an empty tmpfs root; /usr and the usrmerge links read-only; a short list of /etc
 * files; private /proc, /dev, /tmp and HOME; /run as an empty tmpfs; granted directories at
 * their host paths; protected files read-only inside writable roots; user-hidden paths
 * replaced; then the root is remounted read-only. All namespaces are unshared, capabilities
 * dropped, further user namespaces disabled, the environment cleared and rebuilt.
 *
 * @example
 * const plan = planBwrap(policy, ['/bin/true'], {
 *   facts: USRMERGE_FACTS,
 *   env: {},
 *   cwd: '/sandbox/home',
 *   empty: { file: '/x/empty', dir: '/x/empty.d' },
 * });
 */
export function planBwrap(
  policy: SandboxPolicy,
  argv: readonly string[],
  ctx: LinuxPlanContext,
  bwrapPath = '/usr/bin/bwrap',
): LinuxPlan {
  if (!ctx.awaitCommand && (argv.length === 0 || argv[0] === '')) {
    throw new TrustError('SANDBOX_ARGV_INVALID', 'the command argv is empty', {
      hint: 'pass the program and its arguments as an array, e.g. ["/bin/ls", "-l"]',
    });
  }
  const a: string[] = [];
  const caps = policy.capabilities;

  a.push('--unshare-all', '--unshare-user');
  if (ctx.runAs) a.push('--uid', String(ctx.runAs.uid), '--gid', String(ctx.runAs.gid));
  // The host network (degraded), or the private one the launcher made for the run.
  const launcherNetwork = ctx.egress?.outside === true || (ctx.launcherNetwork === true && !ctx.shareNetwork);
  if (launcherNetwork && !ctx.launcher) throw launcherMissing();
  if (ctx.shareNetwork || launcherNetwork) a.push('--share-net');
  a.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  if (ctx.facts.bwrapDisableUserns) a.push('--disable-userns');
  if (ctx.seccomp) a.push('--seccomp', String(SECCOMP_FD));
  a.push('--hostname', 'sandbox');

  // The base: /usr read-only, usrmerge links as symlinks (a bind of a symlink would fail), /dev,
  // empty /tmp, /var/tmp, home and /run, a short /etc, the system roots and /proc. /run and
  // /var/run hold host sockets (docker, D-Bus, ssh-agent): a read-only bind would not stop
  // connect(), so they are fresh.
  const system: LinuxRootOp[] = [{ kind: 'bind', src: '/usr', dest: '/usr' }];
  for (const dir of USRMERGE_DIRS) {
    const f = fact(ctx.facts, dir);
    if (f.kind === 'symlink') system.push({ kind: 'symlink', target: f.target, dest: dir });
    else if (f.kind === 'dir') system.push({ kind: 'bind', src: dir, dest: dir });
  }
  const scratch: LinuxRootOp[] = [
    ...[SANDBOX_LAYOUT.tmp, '/var/tmp', SANDBOX_LAYOUT.home, '/run'].map(
      (dest): LinuxRootOp => ({ kind: 'tmpfs', dest }),
    ),
    { kind: 'symlink', target: '../run', dest: '/var/run' },
  ];
  const policyPaths = [...caps.fsGrants.map((g) => g.path), ...policy.systemRoots, ...policy.hiddenPaths];
  const stageEtc = ctx.stageRoot !== undefined && !policyPaths.some((p) => within('/etc', p));
  const etcBinds = stageEtc ? [] : ETC_FILES.flatMap((etc) => ['--ro-bind-try', etc, etc]);
  const proc = ctx.noProc ? [] : ['--proc', '/proc'];
  // A fresh /proc still acts on the host kernel (sysctls such as kernel/core_pattern, SysRq, IRQ
  // affinity, /proc/fs, /proc/driver, ...), and a host-root run (runAs) keeps host-root DAC rights
  // on those root-owned files without any capability. So for it the whole /proc is read-only: one
  // remount, where covering the known files one by one would cost bwrap a re-read of the mount
  // table each and leave the rest open. Reading is unaffected, and so are writes through
  // /proc/self/fd (they reach the file, not /proc). Any other host uid has no write access to
  // these files: its /proc stays as bwrap makes it.
  if (!ctx.noProc && ctx.runAs) proc.push('--remount-ro', '/proc');
  const systemRoots = [...policy.systemRoots].sort(depthSort).flatMap((root) => ['--ro-bind', root, root]);
  let rootStage: LinuxPlan['rootStage'];
  if (ctx.stageRoot !== undefined) {
    // The launcher makes the base; bwrap binds it as / (devices allowed: /dev is in it; every
    // mount keeps its own flags) and adds what depends on its own namespaces (/proc).
    rootStage = { dir: ctx.stageRoot, ops: [...system, ...scratch], ...(stageEtc ? { etcFiles: ETC_FILES } : {}) };
    a.push('--dev-bind', ctx.stageRoot, '/', ...etcBinds, ...systemRoots, ...proc);
  } else {
    // The same order as with the stage, so that both make the same sandbox (a system root under
    // /tmp or /run lies on top of the empty directory, not under it).
    a.push(
      ...system.flatMap(bwrapOptions),
      '--dev',
      '/dev',
      ...scratch.flatMap(bwrapOptions),
      ...etcBinds,
      ...systemRoots,
      ...proc,
    );
  }

  // Grants, parents before children, so the most specific entry wins. A sensitive root strictly
  // inside a grant is hidden again after that grant, and grants inside it are re-applied on top;
  // a deny entry on a directory (fs:none) is hidden the same way (an empty, read-only tmpfs, with
  // the grants inside it re-applied), a deny entry on a file is covered by an empty file last.
  const entries = [...caps.fsGrants].sort((x, y) => depthSort(x.path, y.path));
  const between = pinnedBetween(policy)
    .filter((p) => fact(ctx.facts, p).kind === 'dir')
    .map((path) => ({ mode: 'rw' as const, path }));
  const grants = [
    ...(entries.filter((g) => g.mode !== 'none') as { mode: 'ro' | 'rw'; path: string }[]),
    ...between,
  ].sort((x, y) => depthSort(x.path, y.path));
  const sensitive = [
    ...SENSITIVE_ROOTS.filter((r) => r !== '/run' && r !== '/var/run'),
    ...(ctx.facts.home ? [ctx.facts.home] : []),
  ];
  const hideAfter = new Set<string>();
  for (const g of grants) {
    for (const s of sensitive) if (s !== g.path && within(g.path, s)) hideAfter.add(s);
  }
  const deniedFiles: string[] = [];
  for (const d of entries) {
    if (d.mode !== 'none') continue;
    const f = fact(ctx.facts, d.path);
    if (f.kind === 'symlink') throw denySymlink(d.path);
    if (f.kind === 'dir') hideAfter.add(d.path);
    else if (f.kind !== 'missing') deniedFiles.push(d.path); // missing: nothing to hide at spawn
  }
  const mountGrant = (g: { mode: 'ro' | 'rw'; path: string }): void => {
    a.push(g.mode === 'rw' ? '--bind' : '--ro-bind', g.path, g.path);
  };
  for (const g of grants) if (![...hideAfter].some((s) => within(s, g.path) && s !== g.path)) mountGrant(g);
  for (const s of [...hideAfter].sort(depthSort)) {
    if (fact(ctx.facts, s).kind === 'missing') continue;
    a.push('--tmpfs', s);
    for (const g of grants) if (g.path !== s && within(s, g.path)) mountGrant(g);
    a.push('--remount-ro', s);
  }
  for (const file of deniedFiles) a.push('--ro-bind', ctx.empty.file, file);

  // Protected paths inside writable roots: bwrap options, or pins for the launcher.
  const {
    placeholders,
    pins,
    options: protectOptions,
    overlays,
  } = planProtected(
    policy,
    ctx,
    grants.filter((g) => !between.some((b) => b.path === g.path)),
  );
  a.push(...protectOptions);

  for (const hidden of [...policy.hiddenPaths].sort(depthSort)) {
    const f = fact(ctx.facts, hidden);
    if (f.kind === 'dir') a.push('--ro-bind', ctx.empty.dir, hidden);
    else if (f.kind !== 'missing') a.push('--ro-bind', ctx.empty.file, hidden);
  }

  // Named unix sockets, after everything that could cover them. (A read-only bind does not stop
  // connect(): the seccomp program, which refuses socket(AF_UNIX) without them, is what does.)
  a.push(...planUnixSockets(policy, ctx.facts));

  const command: string[] = [];
  const rlimits = ctx.rlimits ?? [];
  const bridges: LinuxBridge[] = [];
  if (ctx.egress?.outside) {
    if (!ctx.launcher) throw launcherMissing();
    const { port, socketPath } = ctx.egress;
    bridges.push({ type: 'tcp', port, socketPath });
    if (ctx.egress.udp) bridges.push({ type: 'udp', port, socketPath });
  }
  const inside = ctx.egress && !ctx.egress.outside ? ctx.egress : undefined;
  if (inside) a.push('--ro-bind', inside.socketPath, SANDBOX_LAYOUT.egressSocket);
  if (ctx.awaitCommand && !ctx.launcher) throw launcherMissing();
  // A prepared run's launcher is this descriptor of it (the spawn server passes it through bwrap),
  // unless it is bound in anyway or there is no /proc to reach it by.
  const awaitByFd = ctx.awaitCommand && !inside && rlimits.length === 0 && !ctx.noProc;
  if (awaitByFd) {
    command.push(SANDBOX_LAYOUT.awaitLauncher, '--await', '--');
  } else if ((inside || rlimits.length > 0 || ctx.awaitCommand) && ctx.launcher) {
    a.push('--ro-bind', ctx.launcher, SANDBOX_LAYOUT.launcher);
    command.push(SANDBOX_LAYOUT.launcher);
    if (inside) command.push('--bridge', String(inside.port), SANDBOX_LAYOUT.egressSocket);
    if (inside?.udp) command.push('--udp-bridge', String(inside.port), SANDBOX_LAYOUT.egressSocket);
    // The bridge inside needs AF_UNIX (the filter bwrap loads allows it then): the launcher refuses
    // it to everything it starts once the bridge is up.
    if (inside && ctx.seccomp && policy.unixSockets.length === 0) command.push('--block-unix');
    for (const [name, value] of rlimits) command.push('--rlimit', `${name}=${value}`);
    if (ctx.awaitCommand) command.push('--await');
    command.push('--');
  } else if (inside || rlimits.length > 0) {
    // Fallback without a C compiler: prlimit(1) for limits, socat behind a constant sh script
    // for the bridge. The caller's argv still travels as separate words ("$@"), never as text.
    if (rlimits.length > 0) {
      if (!ctx.fallback?.prlimit) throw launcherMissing();
      command.push(ctx.fallback.prlimit, ...rlimits.map(([n, v]) => `--${PRLIMIT_NAMES[n]}=${v}:${v}`), '--');
    }
    if (inside?.udp) {
      throw new TrustError(
        'SANDBOX_UNAVAILABLE',
        'the udp capability needs the sandbox launcher (the socat fallback cannot carry datagrams)',
        {
          hint: 'install a C compiler (Debian: apt-get install gcc libc6-dev) and do not force bridge: "socat"',
        },
      );
    }
    if (inside) {
      if (!ctx.fallback?.socat) throw launcherMissing();
      command.push(
        '/bin/sh',
        '-c',
        SOCAT_BRIDGE_SCRIPT,
        'trust-bridge',
        ctx.fallback.socat,
        String(inside.port),
        SANDBOX_LAYOUT.egressSocket,
      );
    }
  }

  a.push('--remount-ro', '/');
  if (!ctx.awaitCommand) a.push('--chdir', ctx.cwd);
  a.push('--clearenv');
  if (!ctx.awaitCommand) for (const [k, v] of Object.entries(ctx.env)) a.push('--setenv', k, v);
  const cmd = ctx.awaitCommand ? command : [...command, ...argv];
  return Object.freeze({
    platform: 'linux',
    file: bwrapPath,
    args: Object.freeze([...a, '--', ...cmd]),
    options: Object.freeze(a),
    command: Object.freeze(cmd),
    placeholders: Object.freeze(placeholders),
    pins: Object.freeze(pins),
    overlays: Object.freeze(overlays),
    socketPins: Object.freeze(overlays.length > 0 ? [...policy.unixSockets] : []),
    bridges: Object.freeze(bridges),
    launcherNetwork,
    ...(rootStage ? { rootStage: Object.freeze(rootStage) } : {}),
    env: ctx.env,
  });
}
