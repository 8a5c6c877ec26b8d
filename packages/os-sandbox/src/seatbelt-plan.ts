import { TrustError } from '@trust/core';
import type { SandboxPolicy } from './policy.js';
import { PROTECTED_GIT, protectedEntriesOf } from './protected-paths.js';

/** The macOS sandbox-exec binary, by absolute path (never looked up on PATH). */
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/** Everything a macOS plan needs besides the policy and argv. */
export interface DarwinPlanContext {
  /** The complete environment for the process (set through the spawn env, not a shell). */
  readonly env: Readonly<Record<string, string>>;
  /** Per-run private HOME and TMPDIR directories on the host, created by the executor. */
  readonly home: string;
  readonly tmpdir: string;
  /** The loopback TCP port of the run's own egress-proxy listener, when http/tcp is granted. */
  readonly proxyPort?: number;
}

/** A macOS plan: the profile text, its `-D` parameters and the sandbox-exec argv. */
export interface DarwinPlan {
  readonly platform: 'darwin';
  readonly file: string;
  /** SBPL text. Paths never appear in it: they are `(param "...")` references. */
  readonly profile: string;
  /** The `-D` parameters, by name. */
  readonly params: Readonly<Record<string, string>>;
  /** The complete sandbox-exec argv (without the executable). */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

const SYSTEM_READ = [
  '/usr',
  '/bin',
  '/sbin',
  '/System',
  '/Library/Apple',
  '/private/var/db/timezone',
  '/private/var/db/dyld',
  '/Library/Preferences/Logging',
];
const ETC_READ = [
  '/private/etc/hosts',
  '/private/etc/passwd',
  '/private/etc/group',
  '/private/etc/localtime',
  '/private/etc/ssl',
  '/private/etc/services',
  '/private/etc/protocols',
];
const SENSITIVE = ['/Users', '/var/root', '/private/var/root', '/private/var/run', '/var/run'];

/** The fixed part of every profile: Chrome/Codex-style minimum for a process to start. */
const BASE =
  `(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow user-preference-read)
(allow ipc-posix-sem)
(allow sysctl-read
  (sysctl-name "hw.activecpu") (sysctl-name "hw.logicalcpu") (sysctl-name "hw.logicalcpu_max")
  (sysctl-name "hw.ncpu") (sysctl-name "hw.pagesize") (sysctl-name "hw.pagesize_compat")
  (sysctl-name "hw.physicalcpu") (sysctl-name "hw.memsize") (sysctl-name "hw.machine")
  (sysctl-name "kern.argmax") (sysctl-name "kern.hostname") (sysctl-name "kern.osproductversion")
  (sysctl-name "kern.osrelease") (sysctl-name "kern.ostype") (sysctl-name "kern.osversion")
  (sysctl-name "kern.version") (sysctl-name "kern.maxfilesperproc") (sysctl-name "sysctl.proc_cputype")
  (sysctl-name-prefix "hw.optional.") (sysctl-name-prefix "kern.proc.pid."))
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.PowerManagement.control"))
` +
  // one line of the profile, split here only for the source's width
  '(allow file-read-metadata (literal "/") (literal "/private") (literal "/private/var") ' +
  '(literal "/var") (literal "/etc") (literal "/tmp"))\n' +
  `(allow file-read* file-write-data (literal "/dev/null") (literal "/dev/zero"))
(allow file-read* (literal "/dev/random") (literal "/dev/urandom") (literal "/dev/dtracehelper"))
(allow file-ioctl (literal "/dev/null") (literal "/dev/zero") (literal "/dev/random") (literal "/dev/urandom"))`;

const within = (root: string, path: string): boolean => path === root || path.startsWith(`${root}/`);

function ancestors(path: string): string[] {
  const out: string[] = [];
  let p = path;
  while (p.lastIndexOf('/') > 0) {
    p = p.slice(0, p.lastIndexOf('/'));
    out.push(p);
  }
  return out;
}

/**
 * Plans a seatbelt (sandbox-exec) run. Pure. Every path is passed as a `-D` parameter and
 * referenced with `(param "NAME")`, so no path is ever spliced into profile text. Numbers (the
 * proxy port) are validated integers.
 *
 * Rules, in order (seatbelt is last-match-wins):
 * 1. deny default; minimal process, sysctl and mach rules;
 * 2. read system roots and the granted directories; write the rw grants, HOME and TMPDIR;
 * 3. deny reads of sensitive roots (/Users, /var/root, /var/run) and hidden paths, then re-allow
 *    grants strictly inside them;
 * 4. deny writes to protected files (rc files, .git/hooks, .git/config, .husky, .envrc, .npmrc) in
 *    every writable root, existing or not;
 * 5. deny unlink/rename of every protected path and every ancestor of it, so a parent cannot be
 *    moved aside and replaced;
 * 6. network: nothing, or outbound TCP to localhost:<proxy port> only.
 *
 * @example
 * const plan = planSeatbelt(policy, ['/usr/bin/make'], {
 *   env: {},
 *   home: '/private/tmp/r/home',
 *   tmpdir: '/private/tmp/r/tmp',
 * });
 * // spawn(plan.file, plan.args, { env: plan.env })
 */
export function planSeatbelt(policy: SandboxPolicy, argv: readonly string[], ctx: DarwinPlanContext): DarwinPlan {
  if (argv.length === 0 || argv[0] === '') {
    throw new TrustError('SANDBOX_ARGV_INVALID', 'the command argv is empty', {
      hint: 'pass the program and its arguments as an array, e.g. ["/bin/ls", "-l"]',
    });
  }
  if (policy.unixSockets.length > 0) {
    // (deny default) already refuses every unix socket; an allow rule per named path is not built.
    throw new TrustError('NOT_IMPLEMENTED', 'unixSockets is not implemented on macOS (seatbelt)', {
      hint: 'remove unixSockets from the policy on macOS; without it no unix socket is reachable',
    });
  }
  const params: Record<string, string> = {};
  const ref = (prefix: string, values: readonly string[]): string[] =>
    values.map((v, i) => {
      const key = `${prefix}_${i}`;
      params[key] = v;
      return `(param "${key}")`;
    });
  const lines: string[] = [BASE];
  const caps = policy.capabilities;
  const grants = caps.fsGrants as readonly { readonly mode: 'ro' | 'rw'; readonly path: string }[];
  refuseNested(caps.fsGrants);
  const writeRoots = grants.filter((g) => g.mode === 'rw').map((g) => g.path);

  const sys = ref('SYSTEM_ROOT', [...SYSTEM_READ, ...policy.systemRoots]);
  lines.push(`(allow file-read* ${sys.map((r) => `(subpath ${r})`).join(' ')})`);
  const etc = ref('ETC_FILE', ETC_READ);
  lines.push(`(allow file-read* ${etc.map((r) => `(subpath ${r})`).join(' ')})`);
  const [home] = ref('HOME_DIR', [ctx.home]);
  const [tmp] = ref('TMP_DIR', [ctx.tmpdir]);
  lines.push(`(allow file-read* file-write* (subpath ${home}) (subpath ${tmp}))`);
  if (grants.length > 0) {
    const reads = ref(
      'READ_ROOT',
      grants.map((g) => g.path),
    );
    lines.push(`(allow file-read* ${reads.map((r) => `(subpath ${r})`).join(' ')})`);
    // Ancestors of grants must be stat-able for path resolution, not listable.
    const metas = ref('GRANT_ANCESTOR', [...new Set(grants.flatMap((g) => ancestors(g.path)))].sort());
    if (metas.length > 0) lines.push(`(allow file-read-metadata ${metas.map((r) => `(literal ${r})`).join(' ')})`);
  }
  if (writeRoots.length > 0) {
    const writes = ref('WRITE_ROOT', writeRoots);
    lines.push(`(allow file-write* ${writes.map((r) => `(subpath ${r})`).join(' ')})`);
  }

  const hidden = [...SENSITIVE, ...policy.hiddenPaths].filter((h) =>
    grants.some((g) => g.path !== h && within(g.path, h)),
  );
  if (hidden.length > 0) {
    const hs = ref('HIDDEN', hidden);
    lines.push(`(deny file-read* file-write* ${hs.map((r) => `(subpath ${r})`).join(' ')})`);
    const inner = grants.filter((g) => hidden.some((h) => h !== g.path && within(h, g.path)));
    if (inner.length > 0) {
      const rs = ref(
        'REGRANT',
        inner.map((g) => g.path),
      );
      lines.push(`(allow file-read* ${rs.map((r) => `(subpath ${r})`).join(' ')})`);
      const rw = inner.filter((g) => g.mode === 'rw');
      if (rw.length > 0)
        lines.push(
          `(allow file-write* ${ref(
            'REGRANT_RW',
            rw.map((g) => g.path),
          )
            .map((r) => `(subpath ${r})`)
            .join(' ')})`,
        );
    }
  }
  for (const h of policy.hiddenPaths.filter((p) => !hidden.includes(p))) {
    const [r] = ref('HIDDEN', [h]);
    lines.push(`(deny file-read* file-write* (subpath ${r}))`);
  }

  const protectedPaths = writeRoots.flatMap((root) => [
    ...protectedEntriesOf(policy).map((e) => `${root}/${e.name}`),
    ...PROTECTED_GIT.map((g) => `${root}/${g.path}`),
  ]);
  if (protectedPaths.length > 0) {
    const ps = ref('PROTECTED', protectedPaths);
    lines.push(`(deny file-write* ${ps.map((r) => `(literal ${r}) (subpath ${r})`).join(' ')})`);
    const anc = ref('PROTECTED_ANCESTOR', [...new Set(protectedPaths.flatMap(ancestors))].sort());
    lines.push(`(deny file-write-unlink ${[...ps, ...anc].map((r) => `(literal ${r})`).join(' ')})`);
  }

  if (ctx.proxyPort !== undefined) {
    if (!Number.isInteger(ctx.proxyPort) || ctx.proxyPort < 1 || ctx.proxyPort > 65535) {
      throw new TrustError('SANDBOX_POLICY_INVALID', `proxy port ${String(ctx.proxyPort)} is not a TCP port`, {
        hint: 'use an integer from 1 to 65535',
      });
    }
    lines.push(`(allow network-outbound (remote tcp "localhost:${ctx.proxyPort}"))`);
  }

  const profile = `${lines.join('\n')}\n`;
  const args = ['-p', profile, ...Object.entries(params).map(([k, v]) => `-D${k}=${v}`), '--', ...argv];
  return Object.freeze({
    platform: 'darwin',
    file: SANDBOX_EXEC,
    profile,
    params: Object.freeze(params),
    args: Object.freeze(args),
    env: ctx.env,
  });
}

/**
 * Seatbelt profiles here grant each root by subpath, so a nested entry would be overruled by its
 * parent's rule: refused until the profile orders entries most specific last.
 */
function refuseNested(entries: readonly { readonly mode: string; readonly path: string }[]): void {
  const inner = entries.find((e) => e.mode === 'none' || entries.some((o) => o !== e && within(o.path, e.path)));
  if (!inner) return;
  throw new TrustError(
    'SANDBOX_NESTED_UNSUPPORTED',
    `fs:${inner.mode}:${inner.path}: nested grants and deny entries are not implemented for the macOS sandbox yet`,
    { hint: 'grant sibling directories on macOS; nested entries work in the Linux sandbox and the WASM host' },
  );
}
