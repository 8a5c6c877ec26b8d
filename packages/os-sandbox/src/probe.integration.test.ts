// The probe, fail-closed refusals and degraded-mode auditing, with real bubblewrap.
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowHosts, createMemoryAuditSink } from '@trust/core';
import { ensureLauncher, launcherSourcePath } from './launcher.js';
import { probeSandbox, type SandboxProbe } from './probe.js';
import { createSandbox } from './sandbox.js';
import { freshDir, runIn } from './test-helpers.js';

describe('probeSandbox and fail-closed creation', () => {
  let probe: SandboxProbe;
  let dir: string;
  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    dir = freshDir('trust-probe-');
    const launcher = await ensureLauncher({ cacheDir: dir });
    probe = await probeSandbox({ launcherPath: launcher.path });
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('measures bubblewrap, namespaces, seccomp, Landlock, overlay and cgroups', () => {
    expect(probe.platform).toBe('linux');
    expect(probe.bwrap?.version).toMatch(/^\d+\.\d+/);
    expect(probe.userns).toBe(true);
    expect(probe.netns).toBe(true);
    expect(probe.proc).toBe(true);
    expect(typeof probe.seccomp).toBe('boolean');
    expect(probe.landlock).toBeGreaterThanOrEqual(0);
    expect(probe.pinNamespace).toBe(true);
    expect(probe.launcherNetns).toBe(true);
    expect(probe.overlay.bwrap).toBe(!/^0\.(\d|10)\./.test(probe.bwrap!.version));
    expect(probe.seatbelt).toBe(false);
  });

  it('fails with SANDBOX_UNAVAILABLE and a hint when bubblewrap is missing', async () => {
    await expect(createSandbox({ v: 1 }, { bwrapPath: '/nonexistent/bwrap' })).rejects.toMatchObject({
      code: expect.toBeTrustCode('SANDBOX_UNAVAILABLE'),
      hint: expect.stringMatching(/apt-get install bubblewrap/),
    });
  });

  it('refuses a weaker mode that the policy did not name', async () => {
    await expect(
      createSandbox({ v: 1, capabilities: ['network'] }, { probe: { ...probe, netns: false } }),
    ).rejects.toMatchObject({
      code: expect.toBeTrustCode('SANDBOX_DEGRADED_REFUSED'),
      message: expect.stringContaining('without an address floor'),
    });
    await expect(createSandbox({ v: 1 }, { probe: { ...probe, netns: false } })).rejects.toMatchObject({
      code: expect.toBeTrustCode('SANDBOX_DEGRADED_REFUSED'),
      hint: expect.stringContaining('allowDegraded: ["shared-network"]'),
    });
    await expect(createSandbox({ v: 1 }, { probe: { ...probe, disableUserns: false } })).rejects.toHaveTrustCode(
      'SANDBOX_DEGRADED_REFUSED',
    );
    await expect(
      createSandbox(
        { v: 1, capabilities: ['udp'] },
        { egress: allowHosts([], { udp: true }), platform: 'darwin', probe: { ...probe, platform: 'darwin' } },
      ),
    ).rejects.toHaveTrustCode('NOT_IMPLEMENTED');
  });

  it('runs a named weaker mode and audits it on every run', async () => {
    const audit = createMemoryAuditSink();
    // A host without network namespaces: the network tier falls back to the host network, by name only.
    const sb = await createSandbox(
      { v: 1, capabilities: ['network', 'stdout'], allowDegraded: ['shared-network'] },
      { audit, probe: { ...probe, netns: false } },
    );
    try {
      expect(sb.degraded).toEqual(['shared-network']);
      const r = await runIn(sb, ['/bin/true']);
      expect(r.exit.code).toBe(0);
      const degraded = audit.events().filter((e) => e.action === 'sandbox.degraded' && e.principal.id === r.exit.runId);
      expect(degraded).toHaveLength(1);
      expect(degraded[0]?.details).toMatchObject({ degraded: ['shared-network'] });
    } finally {
      await sb.close();
    }
  });

  it(
    'without seccomp (descriptor 4 free) the launcher still holds ' +
      'its root lock for the whole run and sweeps after it',
    async () => {
      const ws = freshDir('trust-probe-noseccomp-');
      const sb = await createSandbox(
        { v: 1, capabilities: [`fs:rw:${ws}`], allowDegraded: ['no-seccomp'] },
        { probe: { ...probe, seccomp: false }, placeholderLingerMs: 0 },
      );
      try {
        expect(sb.degraded).toEqual(['no-seccomp']);
        const r = await runIn(sb, ['/bin/true'], { cwd: ws });
        expect(r.exit.code).toBe(0);
        // A lock that the launcher had closed with the run's descriptors could not be upgraded: the placeholders would
        // stay.
        for (const f of ['.bashrc', '.git', '.husky']) expect(existsSync(join(ws, f)), f).toBe(false);
      } finally {
        await sb.close();
        rmSync(ws, { recursive: true, force: true });
      }
    },
  );

  it(
    'where the launcher cannot pin (no user namespace of its own), ' +
      'protected paths are bwrap binds and just as read-only',
    async () => {
      const ws = freshDir('trust-probe-nopins-');
      const sb = await createSandbox(
        { v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'], allowDegraded: ['host-placeholders'] },
        { probe: { ...probe, pinNamespace: false }, placeholderLingerMs: 0 },
      );
      try {
        const r = await runIn(
          sb,
          ['/bin/sh', '-c', `echo evil > ${ws}/.bashrc; mkdir ${ws}/.git/hooks; echo ok > ${ws}/fine`],
          { cwd: ws },
        );
        expect(r.stderr).toMatch(/Read-only file system/);
        expect(readFileSync(join(ws, 'fine'), 'utf8')).toBe('ok\n');
        for (const f of ['.bashrc', '.git']) expect(existsSync(join(ws, f)), f).toBe(false);
      } finally {
        await sb.close();
        rmSync(ws, { recursive: true, force: true });
      }
    },
  );

  it('refuses http without an egress policy, an ungranted cwd and stdin without the capability', async () => {
    await expect(createSandbox({ v: 1, capabilities: ['http'] })).rejects.toHaveTrustCode('SANDBOX_POLICY_INVALID');
    await expect(createSandbox({ v: 1, capabilities: ['udp'] })).rejects.toHaveTrustCode('SANDBOX_POLICY_INVALID');
    for (const placeholderLingerMs of [-1, Number.NaN, Infinity]) {
      await expect(createSandbox({ v: 1 }, { placeholderLingerMs }), String(placeholderLingerMs)).rejects.toMatchObject(
        { code: expect.toBeTrustCode('SANDBOX_POLICY_INVALID'), hint: expect.stringMatching(/placeholderLingerMs/) },
      );
    }
    const sb = await createSandbox({ v: 1, capabilities: ['stdout'] });
    try {
      await expect(sb.spawn(['/bin/true'], { cwd: '/etc' })).rejects.toHaveTrustCode('SANDBOX_CWD_NOT_GRANTED');
      await expect(sb.spawn(['/bin/cat'], { stdin: 'x' })).rejects.toHaveTrustCode('SANDBOX_CAPABILITY_MISSING');
      await expect(sb.spawn('ls -l' as unknown as string[])).rejects.toHaveTrustCode('SANDBOX_ARGV_INVALID');
    } finally {
      await sb.close();
    }
    await expect(sb.spawn(['/bin/true'])).rejects.toHaveTrustCode('SANDBOX_CLOSED');
  });

  it('refuses a launcher whose hash does not match', async () => {
    const good = await ensureLauncher({ cacheDir: dir });
    const copy = join(dir, 'copy-launcher');
    copyFileSync(good.path, copy);
    writeFileSync(copy, Buffer.concat([readFileSync(copy), Buffer.from('tampered')]));
    await expect(createSandbox({ v: 1 }, { launcher: { path: copy, sha256: good.sha256 } })).rejects.toHaveTrustCode(
      'SANDBOX_LAUNCHER_TAMPERED',
    );
  });

  it('builds from every source file: a change to any of them is a new build, never a stale one', async () => {
    const src = join(dir, 'native-copy');
    cpSync(dirname(launcherSourcePath()), src, { recursive: true });
    const cache = join(dir, 'cache-copy');
    const first = await ensureLauncher({ cacheDir: cache, source: join(src, 'launcher.c') });
    writeFileSync(join(src, 'pins.c'), `${readFileSync(join(src, 'pins.c'), 'utf8')}\n/* changed */\n`);
    const second = await ensureLauncher({ cacheDir: cache, source: join(src, 'launcher.c') });
    expect(dirname(second.path)).not.toBe(dirname(first.path));
    expect(readdirSync(cache).filter((f) => !f.endsWith('.json'))).toHaveLength(2);
  });

  it('two sandboxes with different policies run concurrently without interfering', async () => {
    const a = await createSandbox(
      { v: 1, capabilities: ['stdout', 'env:ONLY_A'] },
      { env: { ONLY_A: 'a', ONLY_B: 'b' } },
    );
    const b = await createSandbox(
      { v: 1, capabilities: ['stdout', 'env:ONLY_B'] },
      { env: { ONLY_A: 'a', ONLY_B: 'b' } },
    );
    try {
      const [ra, rb] = await Promise.all([runIn(a, ['/usr/bin/env']), runIn(b, ['/usr/bin/env'])]);
      expect(ra.stdout).toContain('ONLY_A=a');
      expect(ra.stdout).not.toContain('ONLY_B');
      expect(rb.stdout).toContain('ONLY_B=b');
      expect(rb.stdout).not.toContain('ONLY_A');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
