import { execFile } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The result of one doctor check. */
export interface DoctorCheck {
  /** Stable id: node, bwrap, userns, netns, seccomp, landlock, cc, socat, seatbelt, chromium, sqlite. */
  readonly id: string;
  readonly label: string;
  /**
   * `ok`; `missing` (the feature cannot work); `degraded` (works with less isolation); `unknown`; `skipped` (not for
   * this platform).
   */
  readonly status: 'ok' | 'missing' | 'degraded' | 'unknown' | 'skipped';
  readonly detail: string;
  /** The exact command or step that fixes it, when the status is not ok. */
  readonly remedy?: string;
}

/** What a probe needs from the machine; injectable so the checks are testable. */
export interface ProbeEnv {
  readonly platform: NodeJS.Platform;
  readonly nodeVersion: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  exec(file: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  readText(path: string): Promise<string | undefined>;
  isExecutable(path: string): Promise<boolean>;
  /** Absolute path of better-sqlite3 as the agent runtime would load it, if it can be found. */
  sqlitePath(): string | undefined;
  /**
   * The root of the trust source checkout this CLI runs from, or `undefined` for an install from
   * the registry. Remedies name the checkout's scripts (`pnpm`, `scripts/bootstrap.sh`) only there.
   */
  readonly checkout: string | undefined;
}

/** A system-package remedy, plus the checkout's bootstrap script when running from one. */
function systemRemedy(probe: ProbeEnv, apt: string): string {
  return probe.checkout ? `${apt} (or, in the checkout: bash scripts/bootstrap.sh --system)` : apt;
}

/**
 * The checkout root when `moduleDir` (a file of this CLI) sits in `<root>/packages/cli/<dir>`
 * of a trust checkout, else `undefined`.
 */
export function findCheckout(moduleDir: string): string | undefined {
  const root = join(moduleDir, '..', '..', '..');
  return existsSync(join(root, 'pnpm-workspace.yaml')) && existsSync(join(root, 'scripts', 'bootstrap.sh'))
    ? root
    : undefined;
}

/** The real machine. */
export function createProbeEnv(
  env: Readonly<Record<string, string | undefined>>,
  sqlitePath: () => string | undefined,
  checkout: string | undefined,
): ProbeEnv {
  return {
    checkout,
    platform: process.platform,
    nodeVersion: process.versions.node,
    env,
    exec: (file, args) =>
      new Promise((resolve) => {
        execFile(file, [...args], { timeout: 10_000, encoding: 'utf8' }, (error, stdout, stderr) => {
          const code = error
            ? typeof (error as { code?: unknown }).code === 'number'
              ? (error as { code: number }).code
              : null
            : 0;
          resolve({ code, stdout: String(stdout ?? ''), stderr: String(stderr ?? error?.message ?? '') });
        });
      }),
    readText: async (path) => {
      try {
        return await readFile(path, 'utf8');
      } catch {
        return undefined;
      }
    },
    isExecutable: async (path) => {
      try {
        await access(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    sqlitePath,
  };
}

/** Node 20.19 or newer. */
export function checkNode(version: string): DoctorCheck {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const ok = major > 20 || (major === 20 && minor >= 19);
  return ok
    ? { id: 'node', label: 'Node.js', status: 'ok', detail: `v${version} (needs 20.19 or newer)` }
    : {
        id: 'node',
        label: 'Node.js',
        status: 'missing',
        detail: `v${version} is too old (needs 20.19 or newer)`,
        remedy: 'install Node.js 20.19 or newer, then run `trust doctor` again',
      };
}

async function findInPath(probe: ProbeEnv, names: readonly string[]): Promise<string | undefined> {
  const dirs = (probe.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of names) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (await probe.isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

const USERNS_REMEDY =
  'allow unprivileged user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` (Debian), `sysctl -w ' +
  'kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 24.04+), or `sysctl -w ' +
  'user.max_user_namespaces=15000`; in a container, allow unshare (e.g. docker run --security-opt ' +
  'seccomp=unconfined)';

/** bubblewrap, user namespaces and network namespaces (Linux only). */
export async function checkBubblewrap(probe: ProbeEnv): Promise<DoctorCheck[]> {
  if (probe.platform !== 'linux') {
    return ['bwrap', 'userns', 'netns'].map((id) => ({
      id,
      label: id,
      status: 'skipped' as const,
      detail: 'Linux only',
    }));
  }
  const bwrap = await findInPath(probe, ['bwrap']);
  if (!bwrap) {
    const remedy = systemRemedy(probe, 'apt-get install bubblewrap');
    return [
      {
        id: 'bwrap',
        label: 'bubblewrap',
        status: 'missing',
        detail: 'bwrap is not on PATH; `trust sandbox` cannot run',
        remedy,
      },
      { id: 'userns', label: 'user namespaces', status: 'unknown', detail: 'needs bwrap to test', remedy },
      { id: 'netns', label: 'network namespaces', status: 'unknown', detail: 'needs bwrap to test', remedy },
    ];
  }
  const version = await probe.exec(bwrap, ['--version']);
  const v = /bubblewrap\s+(\S+)/.exec(version.stdout)?.[1] ?? version.stdout.trim();
  const userns = await probe.exec(bwrap, ['--unshare-user', '--ro-bind', '/', '/', 'true']);
  const netns = await probe.exec(bwrap, ['--unshare-user', '--unshare-net', '--ro-bind', '/', '/', 'true']);
  const firstLine = (s: string) => s.trim().split('\n')[0] ?? '';
  return [
    { id: 'bwrap', label: 'bubblewrap', status: 'ok', detail: `${v} at ${bwrap}` },
    userns.code === 0
      ? { id: 'userns', label: 'user namespaces', status: 'ok', detail: 'bwrap can create a user namespace' }
      : {
          id: 'userns',
          label: 'user namespaces',
          status: 'missing',
          detail: `bwrap --unshare-user failed: ${firstLine(userns.stderr)}`,
          remedy: USERNS_REMEDY,
        },
    netns.code === 0
      ? {
          id: 'netns',
          label: 'network namespaces',
          status: 'ok',
          detail: 'bwrap can create a private network namespace',
        }
      : {
          id: 'netns',
          label: 'network namespaces',
          status: 'missing',
          detail: `bwrap --unshare-net failed: ${firstLine(netns.stderr)}`,
          remedy: USERNS_REMEDY,
        },
  ];
}

/** seccomp (Linux only): the kernel reports a `Seccomp:` line in /proc/self/status. */
export async function checkSeccomp(probe: ProbeEnv): Promise<DoctorCheck> {
  if (probe.platform !== 'linux') return { id: 'seccomp', label: 'seccomp', status: 'skipped', detail: 'Linux only' };
  const status = await probe.readText('/proc/self/status');
  const mode = status === undefined ? undefined : /^Seccomp:\s*(\d)/m.exec(status)?.[1];
  if (mode === undefined) {
    return {
      id: 'seccomp',
      label: 'seccomp',
      status: 'missing',
      detail: 'the kernel does not report seccomp support',
      remedy:
        'use a kernel built with CONFIG_SECCOMP and ' +
        'CONFIG_SECCOMP_FILTER (every mainstream distribution kernel has ' +
        'them)',
    };
  }
  const how =
    mode === '0'
      ? 'available'
      : mode === '2'
        ? 'available (this process already runs under a filter)'
        : 'strict mode only';
  return { id: 'seccomp', label: 'seccomp', status: mode === '1' ? 'degraded' : 'ok', detail: how };
}

/**
 * Landlock, for information only: the sandbox does not apply it (it isolates with namespaces,
 * seccomp and bind mounts), so its absence is never a problem and `--strict` ignores it.
 */
export async function checkLandlock(probe: ProbeEnv): Promise<DoctorCheck> {
  const unused = 'not used by trust (the sandbox isolates with namespaces, seccomp and bind mounts)';
  if (probe.platform !== 'linux') return { id: 'landlock', label: 'Landlock', status: 'skipped', detail: 'Linux only' };
  const lsm = await probe.readText('/sys/kernel/security/lsm');
  const kernel =
    lsm === undefined
      ? 'the LSM list is not readable'
      : lsm
            .split(',')
            .map((x) => x.trim())
            .includes('landlock')
        ? 'enabled in this kernel'
        : 'not enabled in this kernel';
  return { id: 'landlock', label: 'Landlock', status: 'skipped', detail: `${unused}; ${kernel}` };
}

/**
 * The sandbox launcher (Linux): a small C program compiled on first use, which bridges the
 * network and applies limits. Without a C compiler the sandbox falls back to socat and prlimit
 * (slower, no cgroup joining); without either, limits and http/tcp in the sandbox cannot work.
 */
export async function checkLauncherTools(probe: ProbeEnv): Promise<DoctorCheck[]> {
  if (probe.platform !== 'linux')
    return ['cc', 'socat'].map((id) => ({
      id,
      label: id === 'cc' ? 'C compiler' : 'socat',
      status: 'skipped' as const,
      detail: 'Linux only',
    }));
  const [cc, socat, prlimit] = await Promise.all([
    findInPath(probe, ['cc', 'gcc', 'clang']),
    findInPath(probe, ['socat']),
    findInPath(probe, ['prlimit']),
  ]);
  const fallback = socat !== undefined && prlimit !== undefined;
  const ccRemedy = systemRemedy(probe, 'apt-get install gcc libc6-dev');
  const ccCheck: DoctorCheck = cc
    ? { id: 'cc', label: 'C compiler', status: 'ok', detail: `${cc} (builds the sandbox launcher on first use)` }
    : fallback
      ? {
          id: 'cc',
          label: 'C compiler',
          status: 'degraded',
          detail: 'no cc/gcc/clang on PATH: the sandbox uses the socat/prlimit fallback (slower, no cgroup joining)',
          remedy: ccRemedy,
        }
      : {
          id: 'cc',
          label: 'C compiler',
          status: 'missing',
          detail: 'no cc/gcc/clang on PATH and no socat/prlimit fallback: sandbox limits and http/tcp cannot work',
          remedy: ccRemedy,
        };
  const socatRemedy = systemRemedy(probe, 'apt-get install socat util-linux');
  const socatCheck: DoctorCheck = fallback
    ? {
        id: 'socat',
        label: 'socat',
        status: 'ok',
        detail: `${socat} and ${prlimit} (the fallback when no launcher can be built)`,
      }
    : cc
      ? {
          id: 'socat',
          label: 'socat',
          status: 'skipped',
          detail: `${socat ? 'prlimit' : 'socat'} not found; not needed while a C compiler builds the launcher`,
        }
      : {
          id: 'socat',
          label: 'socat',
          status: 'missing',
          detail: `${socat ? 'prlimit' : 'socat'} not found, and there is no C compiler for the launcher`,
          remedy: socatRemedy,
        };
  return [ccCheck, socatCheck];
}

/** seatbelt (macOS only). */
export async function checkSeatbelt(probe: ProbeEnv): Promise<DoctorCheck> {
  if (probe.platform !== 'darwin')
    return { id: 'seatbelt', label: 'seatbelt', status: 'skipped', detail: 'macOS only' };
  return (await probe.isExecutable('/usr/bin/sandbox-exec'))
    ? { id: 'seatbelt', label: 'seatbelt', status: 'ok', detail: '/usr/bin/sandbox-exec is present' }
    : {
        id: 'seatbelt',
        label: 'seatbelt',
        status: 'missing',
        detail: '/usr/bin/sandbox-exec not found',
        remedy: 'seatbelt ships with macOS; restore /usr/bin/sandbox-exec (reinstall or update macOS)',
      };
}

/** Chromium, used by the studio's browser tests (CHROMIUM_PATH overrides the search). */
export async function checkChromium(probe: ProbeEnv): Promise<DoctorCheck> {
  const explicit = probe.env.CHROMIUM_PATH;
  const remedy =
    probe.platform === 'darwin'
      ? 'install Chromium or Google Chrome and set CHROMIUM_PATH to its binary'
      : systemRemedy(probe, 'apt-get install chromium');
  if (explicit) {
    return (await probe.isExecutable(explicit))
      ? { id: 'chromium', label: 'Chromium', status: 'ok', detail: `${explicit} (from CHROMIUM_PATH)` }
      : {
          id: 'chromium',
          label: 'Chromium',
          status: 'missing',
          detail: `CHROMIUM_PATH=${explicit} is not an executable file`,
          remedy,
        };
  }
  const found = await findInPath(probe, ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']);
  return found
    ? { id: 'chromium', label: 'Chromium', status: 'ok', detail: found }
    : {
        id: 'chromium',
        label: 'Chromium',
        status: 'missing',
        detail: 'no chromium on PATH (needed only for the studio browser tests)',
        remedy,
      };
}

/** The SQLite native module the agent runtime uses, loaded in a child process (a bad build can crash). */
export async function checkSqlite(probe: ProbeEnv): Promise<DoctorCheck> {
  const path = probe.sqlitePath();
  const tools = 'needs g++, make and python3: `apt-get install g++ make python3`';
  const remedy = probe.checkout
    ? `rebuild it: \`pnpm rebuild better-sqlite3\` in the checkout ` +
      `(${tools}, and npm_config_nodedir pointing at Node's headers)`
    : `reinstall the CLI with the Node.js you run it with, so the module is built for it: ` +
      `\`npm install -g @trust/cli\` (${tools} when no prebuilt binary fits)`;
  if (!path) {
    return {
      id: 'sqlite',
      label: 'SQLite (better-sqlite3)',
      status: 'missing',
      detail: 'better-sqlite3 is not installed next to @trust/agent-runtime',
      remedy: probe.checkout ? 'reinstall: `pnpm install` in the checkout' : 'reinstall: `npm install -g @trust/cli`',
    };
  }
  const script =
    `const D=require(${JSON.stringify(path)});const db=new ` +
    `D(':memory:');process.stdout.write(String(db.prepare('select sqlite_version() ` +
    `v').get().v))`;
  const r = await probe.exec(process.execPath, ['-e', script]);
  return r.code === 0
    ? { id: 'sqlite', label: 'SQLite (better-sqlite3)', status: 'ok', detail: `loads (SQLite ${r.stdout.trim()})` }
    : {
        id: 'sqlite',
        label: 'SQLite (better-sqlite3)',
        status: 'missing',
        detail: `does not load (exit ${r.code ?? 'signal'}): ${(r.stderr.trim().split('\n')[0] ?? '').slice(0, 200)}`,
        remedy,
      };
}
