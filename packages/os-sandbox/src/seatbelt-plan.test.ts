import { describe, expect, it } from 'vitest';
import { planSandbox } from './plan.js';

const plan = (caps: string[], extra: Record<string, unknown> = {}, proxyPort?: number) => {
  const p = planSandbox({ v: 1, capabilities: caps, ...extra }, ['/usr/bin/make', 'test'], 'darwin', {
    home: '/private/tmp/trust/run/home',
    tmpdir: '/private/tmp/trust/run/tmp',
    env: { PATH: '/usr/bin:/bin', HOME: '/private/tmp/trust/run/home', TMPDIR: '/private/tmp/trust/run/tmp' },
    ...(proxyPort !== undefined ? { proxyPort } : {}),
  });
  if (p.platform !== 'darwin') throw new Error('darwin plan expected');
  return p;
};

describe('planSandbox (darwin seatbelt)', () => {
  it('pins the full profile and parameters for a workspace policy', () => {
    const p = plan(
      ['fs:rw:/Users/alice/project', 'fs:ro:/opt/tools', 'http'],
      { hiddenPaths: ['/Users/alice/project/secrets'] },
      54321,
    );
    expect(p.profile).toMatchSnapshot();
    expect(p.params).toMatchSnapshot();
  });

  it('starts from deny default and uses /usr/bin/sandbox-exec by absolute path', () => {
    const p = plan([]);
    expect(p.file).toBe('/usr/bin/sandbox-exec');
    expect(p.profile.split('\n').slice(0, 2)).toEqual(['(version 1)', '(deny default)']);
    expect(p.args[0]).toBe('-p');
    expect(p.args.slice(-3)).toEqual(['--', '/usr/bin/make', 'test']);
  });

  it('never splices a path into the profile text', () => {
    const evil = '/Users/a") (allow default) ("';
    const p = plan([`fs:rw:${evil}`]);
    expect(p.profile).not.toContain('allow default');
    expect(p.profile).not.toContain('/Users/a');
    expect(Object.values(p.params)).toContain(evil);
    expect(p.args).toContain(`-DWRITE_ROOT_0=${evil}`);
  });

  it('has no network rule without a proxy port, and only localhost:<port> with one', () => {
    expect(plan([]).profile).not.toMatch(/network/);
    const p = plan(['http'], {}, 40000);
    const net = p.profile.split('\n').filter((l) => l.includes('network'));
    expect(net).toEqual(['(allow network-outbound (remote tcp "localhost:40000"))']);
    expect(p.profile).not.toMatch(/mDNSResponder|trustd|:53/);
  });

  it('denies writes to protected files and unlink/rename of every protected path and each ancestor', () => {
    const p = plan(['fs:rw:/Users/alice/project']);
    const names = (prefix: string) =>
      Object.entries(p.params)
        .filter(([k]) => k.startsWith(prefix))
        .map(([, v]) => v);
    expect(names('PROTECTED_')).toEqual(
      expect.arrayContaining([
        '/Users/alice/project/.bashrc',
        '/Users/alice/project/.git/hooks',
        '/Users/alice/project/.git/config',
        '/Users/alice/project/.husky',
        '/Users/alice/project/.envrc',
        '/Users/alice/project/.npmrc',
      ]),
    );
    expect(names('PROTECTED_ANCESTOR_')).toEqual([
      '/Users',
      '/Users/alice',
      '/Users/alice/project',
      '/Users/alice/project/.git',
    ]);
    const unlinkLine = p.profile.split('\n').find((l) => l.startsWith('(deny file-write-unlink'));
    expect(unlinkLine).toContain('(param "PROTECTED_ANCESTOR_3")');
    // Seatbelt is last-match-wins: the denies come after the write allows.
    expect(p.profile.indexOf('(deny file-write*')).toBeGreaterThan(
      p.profile.indexOf('(allow file-write* (subpath (param "WRITE_ROOT_0")))'),
    );
  });

  it('hides sensitive roots inside a broad grant and re-grants narrower grants inside them', () => {
    const p = plan(['fs:ro:/Users/alice/project', 'fs:ro:/private/var']);
    expect(Object.values(p.params)).toContain('/private/var/run');
    expect(p.profile).toMatch(/\(deny file-read\* file-write\* \(subpath \(param "HIDDEN_0"\)\)/);
  });
});
