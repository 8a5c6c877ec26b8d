import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { checkSandboxOptions } from './sandbox-options.js';

/** What this host offers a sandbox. Every field is measured, not assumed. */
export interface SandboxProbe {
  readonly platform: NodeJS.Platform;
  readonly bwrap: { readonly path: string; readonly version: string } | null;
  /** bwrap could create a user namespace (and so run without setuid). */
  readonly userns: boolean;
  /** bwrap could create a network namespace with loopback. */
  readonly netns: boolean;
  /** A private /proc could be mounted (fails in some containers). */
  readonly proc: boolean;
  /** bubblewrap ≥ 0.8: `--disable-userns` locks out nested user namespaces. */
  readonly disableUserns: boolean;
  /** The kernel supports seccomp filters (trust installs its own; see `buildSeccompFilter`). */
  readonly seccomp: boolean;
  /** Landlock ABI version, 0 when unavailable (reported; not used yet). */
  readonly landlock: number;
  /**
   * The launcher can pin protected paths and stage /etc and /dev itself (a user namespace of its
   * own in which it may mount, tmpfs and devpts included, and the kernel's
   * open_tree/mount_setattr API); without it they are all bwrap binds.
   */
  readonly pinNamespace: boolean;
  /**
   * The launcher can also make a run's network namespace in that user namespace (loopback up) and
   * serve the egress bridge from outside the sandbox; without it the bridge runs inside.
   */
  readonly launcherNetns: boolean;
  /** Overlay: kernel overlayfs and bubblewrap ≥ 0.11 `--overlay` support (not used yet). */
  readonly overlay: { readonly kernel: boolean; readonly bwrap: boolean };
  /** Writable cgroup directories for the pids and memory controllers, when delegated. */
  readonly cgroups: { readonly pids?: string; readonly memory?: string; readonly version?: 1 | 2 };
  /** sandbox-exec present (macOS). */
  readonly seatbelt: boolean;
  /** Why something is missing, with how to fix it. */
  readonly notes: readonly string[];
}

/** Options for `probeSandbox`. */
export interface ProbeOptions {
  readonly bwrapPath?: string;
  /** Path of a compiled launcher, used to ask the kernel for the Landlock ABI and what `--pin` needs. */
  readonly launcherPath?: string;
}

const probeOptionsSchema = z
  .object({
    bwrapPath: z.string().min(1).optional().describe('the bubblewrap binary, e.g. "/usr/bin/bwrap"'),
    launcherPath: z.string().min(1).optional().describe('a compiled launcher, e.g. (await ensureLauncher()).path'),
  })
  .strict();

interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 10_000 }, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : -1
        : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const versionAtLeast = (v: string, major: number, minor: number): boolean => {
  const [a = 0, b = 0] = v.split('.').map((x) => Number.parseInt(x, 10));
  return a > major || (a === major && b >= minor);
};

/** Finds a writable cgroup directory for `controller` below the one this process is in. */
function findCgroup(controller: 'pids' | 'memory'): { path: string; version: 1 | 2 } | undefined {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
  } catch {
    return undefined;
  }
  for (const line of lines) {
    const [id, ctrls, path] = line.split(':');
    if (ctrls?.split(',').includes(controller) && id !== '0') {
      const dir = `/sys/fs/cgroup/${controller}${path === '/' ? '' : path}`;
      if (existsSync(`${dir}/cgroup.procs`) && isWritableDir(dir)) return { path: dir, version: 1 };
    }
    if (id === '0' && ctrls === '') {
      for (const base of ['/sys/fs/cgroup/unified', '/sys/fs/cgroup']) {
        const dir = `${base}${path === '/' ? '' : path}`;
        try {
          const enabled = readFileSync(`${dir}/cgroup.subtree_control`, 'utf8').split(/\s+/);
          if (enabled.includes(controller) && isWritableDir(dir)) return { path: dir, version: 2 };
        } catch {
          /* not a v2 mount with this controller */
        }
      }
    }
  }
  return undefined;
}

function isWritableDir(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Measures what the host offers: bubblewrap and its version, user and network namespaces (by
 * running bwrap once), a private /proc, seccomp, Landlock, overlay and delegated cgroups.
 * Takes a few milliseconds; `createSandbox` runs it once per sandbox instance.
 *
 * @example
 * const p = await probeSandbox();
 * if (!p.userns) console.error(p.notes.join('\n'));
 */
export async function probeSandbox(options: ProbeOptions = {}): Promise<SandboxProbe> {
  checkSandboxOptions('probeSandbox', probeOptionsSchema, options);
  const notes: string[] = [];
  const platform = process.platform;
  const seatbelt = platform === 'darwin' && existsSync('/usr/bin/sandbox-exec');
  const bwrapPath = options.bwrapPath ?? '/usr/bin/bwrap';
  let bwrap: SandboxProbe['bwrap'] = null;
  let userns = false;
  let netns = false;
  let proc = false;
  if (platform === 'linux') {
    const v = await run(bwrapPath, ['--version']);
    const version = /bubblewrap\s+(\S+)/.exec(v.stdout)?.[1];
    if (v.code === 0 && version) bwrap = { path: bwrapPath, version };
    else notes.push(`bubblewrap was not found at ${bwrapPath}: install it (Debian/Ubuntu: apt-get install bubblewrap)`);
  }
  if (bwrap) {
    const base = [
      '--ro-bind',
      '/usr',
      '/usr',
      '--symlink',
      'usr/bin',
      '/bin',
      '--symlink',
      'usr/lib',
      '/lib',
      '--symlink',
      'usr/lib64',
      '/lib64',
      '--dev',
      '/dev',
    ];
    const u = await run(bwrapPath, ['--unshare-user', '--unshare-pid', ...base, '--', '/usr/bin/true']);
    userns = u.code === 0;
    if (!userns) {
      notes.push(
        `bwrap cannot create a user namespace ` +
          `(${u.stderr.trim() || `exit ${u.code}`}): enable unprivileged ` +
          `user namespaces ` +
          '(sysctl kernel.unprivileged_userns_clone=1 / ' +
          'user.max_user_namespaces>0); on Ubuntu 24.04+ install the ' +
          'AppArmor ' +
          'profile that allows bwrap (bwrap-userns-restrict) rather than sharing the network',
      );
    }
    const n = await run(bwrapPath, ['--unshare-user', '--unshare-net', ...base, '--', '/usr/bin/true']);
    netns = n.code === 0;
    if (userns && !netns)
      notes.push(
        `bwrap cannot create a network namespace (${n.stderr.trim()}): ` +
          `network isolation needs CAP_NET_ADMIN in a user namespace`,
      );
    const p = await run(bwrapPath, [
      '--unshare-user',
      '--unshare-pid',
      ...base,
      '--proc',
      '/proc',
      '--',
      '/usr/bin/true',
    ]);
    proc = p.code === 0;
    if (userns && !proc)
      notes.push(
        'a private /proc cannot be mounted (typical inside unprivileged ' +
          'containers); accept "no-proc" to run without one',
      );
  }
  let landlock = 0;
  let seccomp = false;
  let pinNamespace = false;
  let launcherNetns = false;
  try {
    seccomp = /^Seccomp:/m.test(readFileSync('/proc/self/status', 'utf8'));
  } catch {
    /* not linux */
  }
  if (options.launcherPath) {
    const l = await run(options.launcherPath, ['--probe']);
    try {
      const parsed = JSON.parse(l.stdout) as { landlock: number; seccomp: number; pins?: number; netns?: number };
      landlock = parsed.landlock;
      seccomp = seccomp || parsed.seccomp === 1;
      pinNamespace = parsed.pins === 1;
      launcherNetns = parsed.netns === 1;
    } catch {
      notes.push('the launcher probe failed; Landlock unknown');
    }
  }
  let overlayKernel = false;
  try {
    overlayKernel = /\boverlay\b/.test(readFileSync('/proc/filesystems', 'utf8'));
  } catch {
    /* not linux */
  }
  const pids = platform === 'linux' ? findCgroup('pids') : undefined;
  const memory = platform === 'linux' ? findCgroup('memory') : undefined;
  if (platform === 'linux' && !pids)
    notes.push('no writable pids cgroup: process limits fall back to RLIMIT_NPROC, which does not bind uid 0');
  return Object.freeze({
    platform,
    bwrap,
    userns,
    netns,
    proc,
    disableUserns: bwrap ? versionAtLeast(bwrap.version, 0, 8) : false,
    seccomp,
    landlock,
    pinNamespace,
    launcherNetns,
    overlay: { kernel: overlayKernel, bwrap: bwrap ? versionAtLeast(bwrap.version, 0, 11) : false },
    cgroups: {
      ...(pids ? { pids: pids.path } : {}),
      ...(memory ? { memory: memory.path } : {}),
      ...(pids || memory ? { version: (pids ?? memory)!.version } : {}),
    },
    seatbelt,
    notes: Object.freeze(notes),
  });
}
