import { execFile } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The result of one doctor check. */
export interface DoctorCheck {
  /** Stable id: node, bwrap, userns, netns, seccomp, landlock, seatbelt, chromium, sqlite. */
  readonly id: string;
  readonly label: string;
  /** `ok`; `missing` (the feature cannot work); `degraded` (works with less isolation); `unknown`; `skipped` (not for this platform). */
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
}

const BOOTSTRAP = 'bash scripts/bootstrap.sh --system (from a trust checkout)';

/** The real machine. */
export function createProbeEnv(env: Readonly<Record<string, string | undefined>>, sqlitePath: () => string | undefined): ProbeEnv {
  return {
    platform: process.platform,
    nodeVersion: process.versions.node,
    env,
    exec: (file, args) =>
      new Promise((resolve) => {
        execFile(file, [...args], { timeout: 10_000, encoding: 'utf8' }, (error, stdout, stderr) => {
          const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : null) : 0;
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
    : { id: 'node', label: 'Node.js', status: 'missing', detail: `v${version} is too old (needs 20.19 or newer)`, remedy: 'install Node.js 20.19 or newer, then run `trust doctor` again' };
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
  'allow unprivileged user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` (Debian), `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 24.04+), or `sysctl -w user.max_user_namespaces=15000`; in a container, allow unshare (e.g. docker run --security-opt seccomp=unconfined)';

/** bubblewrap, user namespaces and network namespaces (Linux only). */
export async function checkBubblewrap(probe: ProbeEnv): Promise<DoctorCheck[]> {
  if (probe.platform !== 'linux') {
    return ['bwrap', 'userns', 'netns'].map((id) => ({ id, label: id, status: 'skipped' as const, detail: 'Linux only' }));
  }
  const bwrap = await findInPath(probe, ['bwrap']);
  if (!bwrap) {
    const remedy = `apt-get install bubblewrap (or ${BOOTSTRAP})`;
    return [
      { id: 'bwrap', label: 'bubblewrap', status: 'missing', detail: 'bwrap is not on PATH; `trust sandbox` cannot run', remedy },
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
      : { id: 'userns', label: 'user namespaces', status: 'missing', detail: `bwrap --unshare-user failed: ${firstLine(userns.stderr)}`, remedy: USERNS_REMEDY },
    netns.code === 0
      ? { id: 'netns', label: 'network namespaces', status: 'ok', detail: 'bwrap can create a private network namespace' }
      : { id: 'netns', label: 'network namespaces', status: 'missing', detail: `bwrap --unshare-net failed: ${firstLine(netns.stderr)}`, remedy: USERNS_REMEDY },
  ];
}

/** seccomp (Linux only): the kernel reports a `Seccomp:` line in /proc/self/status. */
export async function checkSeccomp(probe: ProbeEnv): Promise<DoctorCheck> {
  if (probe.platform !== 'linux') return { id: 'seccomp', label: 'seccomp', status: 'skipped', detail: 'Linux only' };
  const status = await probe.readText('/proc/self/status');
  const mode = status === undefined ? undefined : /^Seccomp:\s*(\d)/m.exec(status)?.[1];
  if (mode === undefined) {
    return { id: 'seccomp', label: 'seccomp', status: 'missing', detail: 'the kernel does not report seccomp support', remedy: 'use a kernel built with CONFIG_SECCOMP and CONFIG_SECCOMP_FILTER (every mainstream distribution kernel has them)' };
  }
  const how = mode === '0' ? 'available' : mode === '2' ? 'available (this process already runs under a filter)' : 'strict mode only';
  return { id: 'seccomp', label: 'seccomp', status: mode === '1' ? 'degraded' : 'ok', detail: how };
}

/** Landlock (Linux only), read from the active LSM list. */
export async function checkLandlock(probe: ProbeEnv): Promise<DoctorCheck> {
  if (probe.platform !== 'linux') return { id: 'landlock', label: 'Landlock', status: 'skipped', detail: 'Linux only' };
  const lsm = await probe.readText('/sys/kernel/security/lsm');
  const remedy = 'use kernel 5.13 or newer with Landlock enabled (boot parameter lsm=landlock,… or CONFIG_LSM including landlock); the sandbox still isolates with namespaces without it';
  if (lsm === undefined) {
    return { id: 'landlock', label: 'Landlock', status: 'unknown', detail: 'the LSM list is not readable (securityfs not mounted, common in containers)', remedy };
  }
  return lsm.split(',').map((s) => s.trim()).includes('landlock')
    ? { id: 'landlock', label: 'Landlock', status: 'ok', detail: `enabled (LSMs: ${lsm.trim()})` }
    : { id: 'landlock', label: 'Landlock', status: 'degraded', detail: `not enabled (LSMs: ${lsm.trim() || 'none'})`, remedy };
}

/** seatbelt (macOS only). */
export async function checkSeatbelt(probe: ProbeEnv): Promise<DoctorCheck> {
  if (probe.platform !== 'darwin') return { id: 'seatbelt', label: 'seatbelt', status: 'skipped', detail: 'macOS only' };
  return (await probe.isExecutable('/usr/bin/sandbox-exec'))
    ? { id: 'seatbelt', label: 'seatbelt', status: 'ok', detail: '/usr/bin/sandbox-exec is present' }
    : { id: 'seatbelt', label: 'seatbelt', status: 'missing', detail: '/usr/bin/sandbox-exec not found', remedy: 'seatbelt ships with macOS; restore /usr/bin/sandbox-exec (reinstall or update macOS)' };
}

/** Chromium, used by the studio's browser tests (CHROMIUM_PATH overrides the search). */
export async function checkChromium(probe: ProbeEnv): Promise<DoctorCheck> {
  const explicit = probe.env.CHROMIUM_PATH;
  const remedy = probe.platform === 'darwin' ? 'install Chromium or Google Chrome and set CHROMIUM_PATH to its binary' : `apt-get install chromium (or ${BOOTSTRAP})`;
  if (explicit) {
    return (await probe.isExecutable(explicit))
      ? { id: 'chromium', label: 'Chromium', status: 'ok', detail: `${explicit} (from CHROMIUM_PATH)` }
      : { id: 'chromium', label: 'Chromium', status: 'missing', detail: `CHROMIUM_PATH=${explicit} is not an executable file`, remedy };
  }
  const found = await findInPath(probe, ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']);
  return found
    ? { id: 'chromium', label: 'Chromium', status: 'ok', detail: found }
    : { id: 'chromium', label: 'Chromium', status: 'missing', detail: 'no chromium on PATH (needed only for the studio browser tests)', remedy };
}

/** The SQLite native module the agent runtime uses, loaded in a child process (a bad build can crash). */
export async function checkSqlite(probe: ProbeEnv): Promise<DoctorCheck> {
  const path = probe.sqlitePath();
  const remedy = 'rebuild it: `pnpm rebuild better-sqlite3` (needs g++, make and python3: `apt-get install g++ make python3`, and npm_config_nodedir pointing at Node\'s headers)';
  if (!path) return { id: 'sqlite', label: 'SQLite (better-sqlite3)', status: 'missing', detail: 'better-sqlite3 is not installed next to @trust/agent-runtime', remedy: 'reinstall: `pnpm install` (or `npm install @trust/cli`)' };
  const script = `const D=require(${JSON.stringify(path)});const db=new D(':memory:');process.stdout.write(String(db.prepare('select sqlite_version() v').get().v))`;
  const r = await probe.exec(process.execPath, ['-e', script]);
  return r.code === 0
    ? { id: 'sqlite', label: 'SQLite (better-sqlite3)', status: 'ok', detail: `loads (SQLite ${r.stdout.trim()})` }
    : { id: 'sqlite', label: 'SQLite (better-sqlite3)', status: 'missing', detail: `does not load (exit ${r.code ?? 'signal'}): ${(r.stderr.trim().split('\n')[0] ?? '').slice(0, 200)}`, remedy };
}
