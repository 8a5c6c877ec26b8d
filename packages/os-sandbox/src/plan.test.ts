import { thrownBy } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';
import { planSandbox } from './plan.js';
import type { HostFacts } from './host-facts.js';
import { ETC_FILES } from './protected-paths.js';

const WS = '/srv/project';
const facts: HostFacts = {
  paths: {
    '/bin': { kind: 'symlink', target: 'usr/bin' },
    '/sbin': { kind: 'symlink', target: 'usr/sbin' },
    '/lib': { kind: 'symlink', target: 'usr/lib' },
    '/lib64': { kind: 'symlink', target: 'usr/lib64' },
    '/root': { kind: 'dir' },
    '/home': { kind: 'dir' },
    '/home/alice': { kind: 'dir' },
    [WS]: { kind: 'dir' },
    [`${WS}/.git`]: { kind: 'dir' },
    [`${WS}/.git/hooks`]: { kind: 'dir' },
    [`${WS}/.git/config`]: { kind: 'file' },
    [`${WS}/.bashrc`]: { kind: 'file' },
    '/srv/secrets': { kind: 'dir' },
  },
  home: '/home/alice',
  bwrapDisableUserns: true,
};

/** Renders bwrap options one per line, so snapshots read like a profile. */
function render(args: readonly string[]): string {
  const lines: string[] = [];
  let cur: string[] = [];
  for (const a of args) {
    if (a.startsWith('--') && cur.length > 0) {
      lines.push(cur.join(' '));
      cur = [];
    }
    cur.push(a);
  }
  lines.push(cur.join(' '));
  return lines.join('\n');
}

describe('planSandbox (linux)', () => {
  it('default policy: nothing granted', () => {
    const plan = planSandbox({ v: 1 }, ['/bin/true'], 'linux');
    expect(plan.platform).toBe('linux');
    if (plan.platform !== 'linux') return;
    expect(render(plan.args)).toMatchSnapshot();
    expect(plan.placeholders).toEqual([]);
  });

  it('workspace, read-only grant over /home, hidden path, limits and the egress bridge', () => {
    const plan = planSandbox(
      {
        v: 1,
        capabilities: [`fs:rw:${WS}`, 'fs:ro:/home', 'http'],
        hiddenPaths: ['/srv/secrets'],
        systemRoots: ['/opt/node'],
      },
      ['/usr/bin/node', 'build.js'],
      'linux',
      {
        facts,
        cwd: WS,
        env: { PATH: '/usr/bin:/bin', HOME: '/sandbox/home', TMPDIR: '/tmp', HTTP_PROXY: 'http://127.0.0.1:3128' },
        launcher: '/var/cache/trust/launcher',
        egress: { socketPath: '/tmp/trust-sandbox-x/run/egress.sock', port: 3128 },
        rlimits: [
          ['nofile', 256],
          ['core', 0],
        ],
        empty: { file: '/tmp/trust-sandbox-x/empty', dir: '/tmp/trust-sandbox-x/empty.d' },
      },
    );
    if (plan.platform !== 'linux') throw new Error('linux plan expected');
    expect(render(plan.args)).toMatchSnapshot();
    expect(plan.placeholders.map((p) => p.path)).toContain(`${WS}/.envrc`);
    expect(plan.placeholders.map((p) => p.path)).not.toContain(`${WS}/.bashrc`);
    expect(plan.command.slice(0, 4)).toEqual(['/sandbox/launcher', '--bridge', '3128', '/sandbox/egress.sock']);
  });

  it('without a launcher, falls back to prlimit and a constant socat script; argv stays "$@"', () => {
    const plan = planSandbox(
      { v: 1, capabilities: ['http'], limits: { files: 64 } },
      ['/usr/bin/curl', '$(id)'],
      'linux',
      {
        egress: { socketPath: '/w/run/egress.sock', port: 3128 },
        rlimits: [['nofile', 64]],
        fallback: { socat: '/usr/bin/socat', prlimit: '/usr/bin/prlimit' },
      },
    );
    if (plan.platform !== 'linux') throw new Error('linux plan expected');
    // The bridge script is pinned on its own: it is longer than a snapshot line may be.
    expect(plan.command[5]).toBe(
      's=$1; p=$2; u=$3; shift 3; "$s" TCP-LISTEN:"$p",bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:"$u" & ' +
        'h=$(printf "%04X" "$p"); i=0; until grep -q ":$h 00000000:0000 0A" /proc/net/tcp; ' +
        'do i=$((i+1)); [ $i -gt 100000 ] && exit 125; done; exec "$@"',
    );
    expect(plan.command.map((a, i) => (i === 5 ? '<bridge script>' : a))).toMatchInlineSnapshot(`
      [
        "/usr/bin/prlimit",
        "--nofile=64:64",
        "--",
        "/bin/sh",
        "-c",
        "<bridge script>",
        "trust-bridge",
        "/usr/bin/socat",
        "3128",
        "/sandbox/egress.sock",
        "/usr/bin/curl",
        "$(id)",
      ]
    `);
    expect(() =>
      planSandbox({ v: 1, capabilities: ['http'] }, ['/bin/true'], 'linux', {
        egress: { socketPath: '/s', port: 3128 },
      }),
    ).toThrowTrustError('SANDBOX_UNAVAILABLE');
  });

  it('udp: the launcher also bridges the same loopback port number for datagrams; the socat fallback cannot', () => {
    const plan = planSandbox({ v: 1, capabilities: ['udp'] }, ['/usr/bin/dig'], 'linux', {
      launcher: '/w/.native/launcher',
      egress: { socketPath: '/w/run/egress.sock', port: 3128, udp: true },
    });
    if (plan.platform !== 'linux') throw new Error('linux plan expected');
    expect(plan.command).toEqual([
      '/sandbox/launcher',
      '--bridge',
      '3128',
      '/sandbox/egress.sock',
      '--udp-bridge',
      '3128',
      '/sandbox/egress.sock',
      '--block-unix',
      '--',
      '/usr/bin/dig',
    ]);
    expect(plan.options).toContain('--unshare-all');
    expect(plan.options).not.toContain('--share-net');
    expect(() =>
      planSandbox({ v: 1, capabilities: ['udp'] }, ['/bin/true'], 'linux', {
        egress: { socketPath: '/s', port: 3128, udp: true },
        fallback: { socat: '/usr/bin/socat' },
      }),
    ).toThrowTrustError('SANDBOX_UNAVAILABLE');
  });

  it('egress.outside: the launcher makes the network namespace and bridges it, so nothing is bound in for it', () => {
    const ctx = {
      launcher: '/w/.native/launcher',
      egress: { socketPath: '/w/run/egress.sock', port: 3128, udp: true, outside: true },
    };
    const plan = planSandbox({ v: 1, capabilities: ['udp'] }, ['/usr/bin/dig'], 'linux', ctx);
    if (plan.platform !== 'linux') throw new Error('linux plan expected');
    expect(plan.bridges).toEqual([
      { type: 'tcp', port: 3128, socketPath: '/w/run/egress.sock' },
      { type: 'udp', port: 3128, socketPath: '/w/run/egress.sock' },
    ]);
    expect(plan.command).toEqual(['/usr/bin/dig']);
    // bwrap joins the launcher's private namespace instead of making one; still no host network.
    expect(plan.options.slice(0, 2)).toEqual(['--unshare-all', '--unshare-user']);
    expect(plan.options).toContain('--share-net');
    expect(plan.options.join(' ')).not.toMatch(/egress\.sock|\/sandbox\/launcher/);
    // Limits still need the launcher inside (setrlimit for the command), without a bridge there.
    const limited = planSandbox({ v: 1, capabilities: ['http'], limits: { files: 64 } }, ['/bin/true'], 'linux', {
      ...ctx,
      rlimits: [['nofile', 64]],
    });
    if (limited.platform !== 'linux') throw new Error('linux plan expected');
    expect(limited.command).toEqual(['/sandbox/launcher', '--rlimit', 'nofile=64', '--', '/bin/true']);
    expect(limited.options.join(' ')).not.toContain('egress.sock');
    // Only the compiled launcher can serve it.
    expect(() =>
      planSandbox({ v: 1, capabilities: ['http'] }, ['/bin/true'], 'linux', {
        egress: { socketPath: '/s', port: 3128, outside: true },
      }),
    ).toThrowTrustError('SANDBOX_UNAVAILABLE');
  });

  it(
    'stageRoot: the launcher stages /usr, /etc, /dev and the empty directories; bwrap ' +
      'binds that as / (and keeps /etc binds when a policy path lies in /etc)',
    () => {
      const staged = planSandbox({ v: 1, systemRoots: ['/opt/tool'] }, ['/bin/true'], 'linux', {
        facts,
        stageRoot: '/w/root.stage',
        runAs: { uid: 65534, gid: 65534 },
      });
      if (staged.platform !== 'linux') throw new Error('linux plan expected');
      expect(staged.rootStage).toEqual({
        dir: '/w/root.stage',
        ops: [
          { kind: 'bind', src: '/usr', dest: '/usr' },
          { kind: 'symlink', target: 'usr/bin', dest: '/bin' },
          { kind: 'symlink', target: 'usr/sbin', dest: '/sbin' },
          { kind: 'symlink', target: 'usr/lib', dest: '/lib' },
          { kind: 'symlink', target: 'usr/lib64', dest: '/lib64' },
          { kind: 'tmpfs', dest: '/tmp' },
          { kind: 'tmpfs', dest: '/var/tmp' },
          { kind: 'tmpfs', dest: '/sandbox/home' },
          { kind: 'tmpfs', dest: '/run' },
          { kind: 'symlink', target: '../run', dest: '/var/run' },
        ],
        etcFiles: ETC_FILES,
      });
      // One bind of the stage as the root (devices allowed: /dev is in it), then what needs bwrap's
      // own namespaces; none of the base's own options remain, and the root is still made read-only.
      expect(render(staged.options)).toContain(
        '--dev-bind /w/root.stage /\n--ro-bind /opt/tool /opt/tool\n--proc /proc\n--remount-ro /proc',
      );
      for (const gone of ['--tmpfs', '--dev', '--symlink', '/usr']) expect(staged.options).not.toContain(gone);
      expect(staged.options.filter((o) => o.startsWith('/etc'))).toEqual([]);
      expect(render(staged.options)).toContain('--remount-ro /\n--chdir');
      // Without it, bwrap makes the same base itself.
      const plain = planSandbox({ v: 1 }, ['/bin/true'], 'linux', { facts });
      if (plain.platform !== 'linux') throw new Error('linux plan expected');
      expect(plain.rootStage).toBeUndefined();
      expect(render(plain.options)).toContain('--ro-bind /usr /usr\n--symlink usr/bin /bin');
      expect(render(plain.options)).toContain(
        '--dev /dev\n--tmpfs /tmp\n--tmpfs /var/tmp\n--tmpfs /sandbox/home\n--tmpfs /run\n--symlink ../run /var/run',
      );
      for (const inside of [
        { systemRoots: ['/etc/ssl'] },
        { capabilities: ['fs:ro:/etc/xdg'] },
        { hiddenPaths: ['/etc/hosts'] },
      ]) {
        const etc = planSandbox({ v: 1, ...inside }, ['/bin/true'], 'linux', { facts, stageRoot: '/w/root.stage' });
        if (etc.platform !== 'linux') throw new Error('linux plan expected');
        expect(etc.rootStage?.etcFiles).toBeUndefined();
        expect(render(etc.options)).toContain(
          '--dev-bind /w/root.stage /\n--ro-bind-try /etc/alternatives /etc/alternatives',
        );
      }
    },
  );

  it(
    "launcherNetwork: a run without network also gets the launcher's " +
      "private namespace (loopback only), never the host's",
    () => {
      const plan = planSandbox({ v: 1, capabilities: [] }, ['/bin/true'], 'linux', {
        launcher: '/w/.native/launcher',
        launcherNetwork: true,
      });
      if (plan.platform !== 'linux') throw new Error('linux plan expected');
      expect(plan.launcherNetwork).toBe(true);
      expect(plan.bridges).toEqual([]);
      expect(plan.options.slice(0, 2)).toEqual(['--unshare-all', '--unshare-user']);
      expect(plan.options).toContain('--share-net');
      // Without it, bwrap makes the namespace; the degraded shared network never takes the launcher's.
      const own = planSandbox({ v: 1, capabilities: [] }, ['/bin/true'], 'linux', { launcher: '/w/.native/launcher' });
      if (own.platform !== 'linux') throw new Error('linux plan expected');
      expect([own.launcherNetwork, own.options.includes('--share-net')]).toEqual([false, false]);
      const shared = planSandbox(
        { v: 1, capabilities: ['network'], allowDegraded: ['shared-network'] },
        ['/bin/true'],
        'linux',
        { launcher: '/w/.native/launcher', launcherNetwork: true, shareNetwork: true },
      );
      if (shared.platform !== 'linux') throw new Error('linux plan expected');
      expect(shared.launcherNetwork).toBe(false);
      expect(() =>
        planSandbox({ v: 1, capabilities: [] }, ['/bin/true'], 'linux', { launcherNetwork: true }),
      ).toThrowTrustError('SANDBOX_UNAVAILABLE');
    },
  );

  it('network tier: its own namespace and the proxy bridge (TCP and UDP); shared only in the degraded mode', () => {
    const floored = planSandbox({ v: 1, capabilities: ['network'] }, ['/usr/bin/git', 'fetch'], 'linux', {
      env: {
        PATH: '/usr/bin:/bin',
        HOME: '/sandbox/home',
        TMPDIR: '/tmp',
        HTTP_PROXY: 'http://127.0.0.1:3128',
        ALL_PROXY: 'http://127.0.0.1:3128',
      },
      launcher: '/var/cache/trust/launcher',
      egress: { socketPath: '/tmp/trust-sandbox-x/run/egress.sock', port: 3128, udp: true },
      empty: { file: '/tmp/trust-sandbox-x/empty', dir: '/tmp/trust-sandbox-x/empty.d' },
    });
    if (floored.platform !== 'linux') throw new Error('linux plan expected');
    expect(render(floored.args)).toMatchSnapshot();
    expect(floored.options).not.toContain('--share-net');
    const shared = planSandbox(
      { v: 1, capabilities: ['network'], allowDegraded: ['shared-network'] },
      ['/usr/bin/git', 'fetch'],
      'linux',
      { shareNetwork: true },
    );
    if (shared.platform !== 'linux') throw new Error('linux plan expected');
    expect(shared.options).toContain('--share-net');
    expect(shared.command).toEqual(['/usr/bin/git', 'fetch']);
  });

  it('refuses a protected path that is a symlink inside a writable root (it could be swapped)', () => {
    const linked: HostFacts = {
      ...facts,
      paths: { ...facts.paths, [`${WS}/.bashrc`]: { kind: 'symlink', target: 'dotfiles/bashrc' } },
    };
    expect(() =>
      planSandbox({ v: 1, capabilities: [`fs:rw:${WS}`] }, ['/bin/true'], 'linux', { facts: linked }),
    ).toThrowTrustError('SANDBOX_PROTECTED_SYMLINK');
    expect(() =>
      planSandbox({ v: 1, capabilities: [`fs:ro:${WS}`] }, ['/bin/true'], 'linux', { facts: linked }),
    ).not.toThrow();
  });

  it.each([
    ['--unshare-all'],
    ['--unshare-user'],
    ['--die-with-parent'],
    ['--new-session'],
    ['--disable-userns'],
    ['--clearenv'],
  ])('always contains %s', (flag) => {
    const plan = planSandbox({ v: 1, capabilities: ['fs:rw:/w'] }, ['/bin/true'], 'linux');
    expect(plan.args).toContain(flag);
  });

  it('drops all capabilities, hides /run and remounts the root read-only after every mount', () => {
    const plan = planSandbox({ v: 1, capabilities: ['fs:rw:/w'] }, ['/bin/true'], 'linux');
    if (plan.platform !== 'linux') throw new Error('linux plan expected');
    const o = plan.options.join(' ');
    expect(o).toContain('--cap-drop ALL');
    expect(o).toContain('--tmpfs /run --symlink ../run /var/run');
    const remount = plan.options.lastIndexOf('/');
    const lastMount = Math.max(...['--bind', '--ro-bind', '--tmpfs'].map((m) => plan.options.lastIndexOf(m)));
    expect(plan.options[remount - 1]).toBe('--remount-ro');
    expect(remount).toBeGreaterThan(lastMount);
  });

  it('with pinProtected, protected paths and the existing .git become launcher pins, not bwrap binds', () => {
    const plan = planSandbox({ v: 1, capabilities: [`fs:rw:${WS}`] }, ['/bin/true'], 'linux', {
      facts,
      pinProtected: true,
    });
    if (plan.platform !== 'linux') throw new Error('linux plan expected');
    expect(plan.pins).toContainEqual({ kind: 'F', path: `${WS}/.bashrc` });
    expect(plan.pins).toContainEqual({ kind: 'D', path: `${WS}/.git` });
    expect(plan.pins).toContainEqual({ kind: 'f', path: `${WS}/.npmrc` });
    expect(plan.pins).toContainEqual({ kind: 'd', path: `${WS}/.husky` });
    // Every placeholder is pinned by the launcher, and bwrap binds nothing inside the root but the root.
    for (const p of plan.placeholders)
      expect(plan.pins).toContainEqual({ kind: p.type === 'file' ? 'f' : 'd', path: p.path });
    expect(plan.options.filter((o) => o.startsWith(`${WS}/`))).toEqual([]);
    const bwrapOnly = planSandbox({ v: 1, capabilities: [`fs:rw:${WS}`] }, ['/bin/true'], 'linux', { facts });
    if (bwrapOnly.platform !== 'linux') throw new Error('linux plan expected');
    expect(bwrapOnly.pins).toEqual([]);
    expect(bwrapOnly.options.join(' ')).toContain(`--ro-bind ${WS}/.git ${WS}/.git`);
  });

  it('makes the whole /proc read-only, right after mounting it, only for a host-root run (runAs)', () => {
    const asRoot = planSandbox({ v: 1 }, ['/bin/true'], 'linux', { runAs: { uid: 65534, gid: 65534 } });
    const asUser = planSandbox({ v: 1 }, ['/bin/true'], 'linux');
    if (asRoot.platform !== 'linux' || asUser.platform !== 'linux') throw new Error('linux plans expected');
    expect(asRoot.options.join(' ')).toContain('--proc /proc --remount-ro /proc');
    expect(asUser.options.join(' ')).not.toContain('--remount-ro /proc');
    expect(asUser.options.filter((o) => o.startsWith('/proc/'))).toEqual([]);
  });

  it('never takes a shell string: argv stays separate words after --', () => {
    const plan = planSandbox({ v: 1 }, ['/bin/echo', 'a; rm -rf /', '$(id)'], 'linux');
    expect(plan.args.slice(-3)).toEqual(['/bin/echo', 'a; rm -rf /', '$(id)']);
    expect(() => planSandbox({ v: 1 }, [], 'linux')).toThrowTrustError('SANDBOX_ARGV_INVALID');
    expect(() => planSandbox({ v: 1 }, 'ls -l' as unknown as string[], 'linux')).toThrowTrustError(
      'SANDBOX_ARGV_INVALID',
    );
  });

  it(
    'awaitCommand: bwrap runs the launcher from its descriptor with ' +
      '--await; no --chdir, --setenv or argv (they come later)',
    () => {
      const ctx = {
        facts,
        cwd: WS,
        env: { PATH: '/usr/bin:/bin', SECRETLESS: 'x' },
        launcher: '/var/cache/trust/launcher',
        awaitCommand: true,
      } as const;
      const plan = planSandbox({ v: 1, capabilities: [`fs:rw:${WS}`] }, ['/bin/echo', 'ignored'], 'linux', ctx);
      if (plan.platform !== 'linux') throw new Error('linux plan expected');
      expect(plan.command).toEqual(['/proc/self/fd/6', '--await', '--']);
      expect(plan.args.slice(-4)).toEqual(['--', '/proc/self/fd/6', '--await', '--']);
      expect(plan.options).toContain('--clearenv');
      expect(
        plan.options.filter(
          (o) => o === '--chdir' || o === '--setenv' || o === 'ignored' || o === '/var/cache/trust/launcher',
        ),
      ).toEqual([]);
      // With limits the launcher is bound in anyway (it applies them), and takes --await after them.
      const limited = planSandbox({ v: 1, capabilities: [`fs:rw:${WS}`], limits: { files: 64 } }, [], 'linux', {
        ...ctx,
        rlimits: [['nofile', 64]],
      });
      if (limited.platform !== 'linux') throw new Error('linux plan expected');
      expect(limited.command).toEqual(['/sandbox/launcher', '--rlimit', 'nofile=64', '--await', '--']);
      expect(limited.options.join(' ')).toContain('--ro-bind /var/cache/trust/launcher /sandbox/launcher');
      // Without /proc there is no descriptor path to run it by: bound in.
      const noProc = planSandbox({ v: 1, capabilities: [`fs:rw:${WS}`] }, [], 'linux', { ...ctx, noProc: true });
      if (noProc.platform !== 'linux') throw new Error('linux plan expected');
      expect(noProc.command).toEqual(['/sandbox/launcher', '--await', '--']);
      // And never without a launcher.
      expect(() => planSandbox({ v: 1 }, [], 'linux', { facts, awaitCommand: true })).toThrowTrustError(
        'SANDBOX_UNAVAILABLE',
      );
    },
  );

  it('is pure: the same inputs give the same plan', () => {
    const p = { v: 1 as const, capabilities: ['fs:rw:/w', 'env:A'] };
    expect(planSandbox(p, ['/bin/true'], 'linux')).toEqual(planSandbox(p, ['/bin/true'], 'linux'));
  });

  it('refuses an invalid policy with every problem listed', () => {
    const err = thrownBy(() =>
      planSandbox({ v: 2, capabilities: ['env', 'fs:rw:relative'], extra: 1 } as never, ['/bin/true'], 'linux'),
    );
    expect(err).toHaveTrustCode('SANDBOX_POLICY_INVALID');
    expect(err.problems.length).toBeGreaterThanOrEqual(2);
    expect(() =>
      planSandbox({ v: 1, capabilities: ['env', 'fs:rw:relative'] }, ['/bin/true'], 'linux'),
    ).toThrowTrustError('SANDBOX_POLICY_INVALID');
  });
});
