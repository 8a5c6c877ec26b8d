import { describe, expect, it } from 'vitest';
import {
  checkBubblewrap,
  checkChromium,
  checkLandlock,
  checkLauncherTools,
  checkNode,
  checkSeatbelt,
  checkSeccomp,
  checkSqlite,
  type ProbeEnv,
} from './doctor-checks.js';

function fakeProbe(
  over: Partial<ProbeEnv> & {
    files?: Record<string, string>;
    executables?: string[];
    execResults?: Record<string, { code: number; stdout?: string; stderr?: string }>;
  } = {},
): ProbeEnv {
  return {
    platform: over.platform ?? 'linux',
    nodeVersion: '20.20.2',
    env: over.env ?? { PATH: '/usr/bin' },
    exec: async (file, args) => {
      const key = [file, ...args].join(' ');
      const hit = Object.entries(over.execResults ?? {}).find(([k]) => key.includes(k));
      const r = hit?.[1] ?? { code: 0 };
      return { code: r.code, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    },
    readText: async (p) => over.files?.[p],
    isExecutable: async (p) => (over.executables ?? []).includes(p),
    sqlitePath: over.sqlitePath ?? (() => '/x/better-sqlite3/lib/index.js'),
    checkout: 'checkout' in over ? over.checkout : undefined,
  };
}

describe('doctor checks', () => {
  it.each([
    ['20.19.0', 'ok'],
    ['22.1.0', 'ok'],
    ['20.18.3', 'missing'],
    ['18.20.0', 'missing'],
  ])('node %s → %s', (v, status) => {
    expect(checkNode(v).status).toBe(status);
  });

  it('reports bubblewrap missing with the apt-get remedy', async () => {
    const [bwrap] = await checkBubblewrap(fakeProbe());
    expect(bwrap).toMatchObject({ id: 'bwrap', status: 'missing' });
    expect(bwrap?.remedy).toContain('apt-get install bubblewrap');
  });

  it('reports bubblewrap, userns ok and netns missing with a sysctl remedy', async () => {
    const checks = await checkBubblewrap(
      fakeProbe({
        executables: ['/usr/bin/bwrap'],
        execResults: {
          '--version': { code: 0, stdout: 'bubblewrap 0.8.0\n' },
          '--unshare-net': { code: 1, stderr: 'bwrap: loopback: Failed RTM_NEWADDR\n' },
        },
      }),
    );
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['bwrap', 'ok'],
      ['userns', 'ok'],
      ['netns', 'missing'],
    ]);
    expect(checks[0]?.detail).toBe('0.8.0 at /usr/bin/bwrap');
    expect(checks[2]?.remedy).toContain('sysctl');
  });

  it('skips Linux-only checks elsewhere and checks seatbelt on macOS', async () => {
    expect((await checkBubblewrap(fakeProbe({ platform: 'darwin' }))).every((c) => c.status === 'skipped')).toBe(true);
    expect(
      (await checkSeatbelt(fakeProbe({ platform: 'darwin', executables: ['/usr/bin/sandbox-exec'] }))).status,
    ).toBe('ok');
    expect((await checkSeatbelt(fakeProbe({ platform: 'darwin' }))).status).toBe('missing');
    expect((await checkSeatbelt(fakeProbe())).status).toBe('skipped');
  });

  it.each([
    ['Seccomp:\t0\n', 'ok'],
    ['Seccomp:\t2\n', 'ok'],
    ['Seccomp:\t1\n', 'degraded'],
    ['Name: x\n', 'missing'],
  ])('seccomp %j → %s', async (status, expected) => {
    expect((await checkSeccomp(fakeProbe({ files: { '/proc/self/status': status } }))).status).toBe(expected);
  });

  it.each([
    ['lockdown,capability,landlock,yama', 'enabled in this kernel'],
    ['capability,yama', 'not enabled in this kernel'],
    [undefined, 'not readable'],
  ])('landlock %s is information only (skipped, never a problem for --strict): %s', async (lsm, detail) => {
    const files: Record<string, string> = lsm === undefined ? {} : { '/sys/kernel/security/lsm': lsm };
    const c = await checkLandlock(fakeProbe({ files }));
    expect(c.status).toBe('skipped');
    expect(c.detail).toContain('not used by trust');
    expect(c.detail).toContain(detail);
  });

  it.each([
    [['/usr/bin/cc', '/usr/bin/socat', '/usr/bin/prlimit'], 'ok', 'ok'],
    [['/usr/bin/gcc'], 'ok', 'skipped'],
    [['/usr/bin/socat', '/usr/bin/prlimit'], 'degraded', 'ok'],
    [['/usr/bin/socat'], 'missing', 'missing'],
    [[], 'missing', 'missing'],
  ])('launcher tools with %j: cc %s, socat %s', async (executables, cc, socat) => {
    const checks = await checkLauncherTools(fakeProbe({ executables }));
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['cc', cc],
      ['socat', socat],
    ]);
    for (const c of checks)
      if (c.status === 'missing' || c.status === 'degraded') expect(c.remedy).toMatch(/apt-get install (gcc|socat)/);
  });

  it('names the checkout scripts only when running from a checkout', async () => {
    const npm = await checkBubblewrap(fakeProbe());
    expect(npm[0]?.remedy).toBe('apt-get install bubblewrap');
    const repo = await checkBubblewrap(fakeProbe({ checkout: '/src/trust' }));
    expect(repo[0]?.remedy).toContain('scripts/bootstrap.sh');
    const crash = { execResults: { sqlite_version: { code: 139, stderr: 'Segmentation fault' } } };
    expect((await checkSqlite(fakeProbe(crash))).remedy).toContain('npm install -g @trust/cli');
    expect((await checkSqlite(fakeProbe(crash))).remedy).not.toContain('pnpm');
    expect((await checkSqlite(fakeProbe({ ...crash, checkout: '/src/trust' }))).remedy).toContain(
      'pnpm rebuild better-sqlite3',
    );
  });

  it('finds Chromium on PATH or through CHROMIUM_PATH, and names the remedy otherwise', async () => {
    expect((await checkChromium(fakeProbe({ executables: ['/usr/bin/chromium'] }))).detail).toBe('/usr/bin/chromium');
    expect((await checkChromium(fakeProbe({ env: { CHROMIUM_PATH: '/opt/c' }, executables: ['/opt/c'] }))).status).toBe(
      'ok',
    );
    const missing = await checkChromium(fakeProbe({ env: { CHROMIUM_PATH: '/nope' } }));
    expect(missing.status).toBe('missing');
    expect(missing.remedy).toContain('apt-get install chromium');
  });

  it('reports the SQLite module as loading, crashing, or absent', async () => {
    expect(
      (await checkSqlite(fakeProbe({ execResults: { sqlite_version: { code: 0, stdout: '3.53.2' } } }))).detail,
    ).toBe('loads (SQLite 3.53.2)');
    const crash = await checkSqlite(
      fakeProbe({ execResults: { sqlite_version: { code: 139, stderr: 'Segmentation fault' } } }),
    );
    expect(crash.status).toBe('missing');
    expect((await checkSqlite(fakeProbe({ sqlitePath: () => undefined }))).status).toBe('missing');
  });
});
