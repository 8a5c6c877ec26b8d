// The escape suite: every attempt must fail. Real bubblewrap; fails (never skips) without it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, connect, type Server } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from './sandbox.js';
import { NODE, NODE_ROOTS, createRecordingAudit, freshDir, runIn } from './test-helpers.js';

const BASH = '/bin/bash';

describe('escape suite (bubblewrap)', () => {
  let ws: string;
  let outside: string;
  let fakeParent: string;
  let fakeHome: string;
  let sb: Sandbox;
  const audit = createRecordingAudit();

  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed (apt-get install bubblewrap)').toBe(true);
    ws = freshDir('trust-ws-');
    outside = freshDir('trust-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'outside-secret');
    fakeParent = freshDir('trust-users-');
    fakeHome = join(fakeParent, 'alice');
    mkdirSync(join(fakeHome, '.ssh'), { recursive: true });
    writeFileSync(join(fakeHome, '.ssh', 'id_ed25519'), 'PLANTED-PRIVATE-KEY');
    mkdirSync(join(fakeParent, 'shared'));
    writeFileSync(join(fakeParent, 'shared', 'ok.txt'), 'shared-ok');
    mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(ws, '.git', 'config'), '[core]\n');
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'link-to-secret'));
    symlinkSync(fakeHome, join(ws, 'link-to-home'));
    sb = await createSandbox(
      {
        v: 1,
        capabilities: [`fs:rw:${ws}`, `fs:ro:${fakeParent}`, 'stdout', 'stderr', 'env:GRANTED_TOKEN'],
        systemRoots: NODE_ROOTS,
      },
      {
        audit,
        // Each run removes its own placeholders when it ends (the default keeps them a while).
        placeholderLingerMs: 0,
        env: {
          PATH: '/usr/bin:/bin',
          HOME: fakeHome,
          SECRET_TOKEN: 'leak-me-1',
          AWS_SECRET_ACCESS_KEY: 'leak-me-2',
          PLAIN: 'not-granted',
          GRANTED_TOKEN: 'granted-value',
        },
      },
    );
  });
  afterAll(async () => {
    await sb?.close();
    for (const d of [ws, outside, fakeParent]) if (d) rmSync(d, { recursive: true, force: true });
  });

  it('cannot write outside the writable roots', async () => {
    const target = join(outside, 'written.txt');
    const r = await runIn(sb, [
      BASH,
      '-c',
      `echo x > ${target}; echo x > /etc/evil; echo x > /usr/evil; echo x ` +
        `> ${fakeParent}/shared/evil; echo x > /evil; echo ok > ${ws}/inside.txt`,
    ]);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(fakeParent, 'shared', 'evil'))).toBe(false);
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(join(ws, 'inside.txt'), 'utf8')).toBe('ok\n');
  });

  it('cannot read a planted secret in $HOME, even below a granted parent', async () => {
    const r = await runIn(sb, [
      BASH,
      '-c',
      `cat ${fakeHome}/.ssh/id_ed25519; ls -a ${fakeHome}; ` +
        `cat ${fakeParent}/shared/ok.txt; ls -a /root /home 2>&1; echo ` +
        `HOME=$HOME`,
    ]);
    expect(r.stdout).not.toContain('PLANTED-PRIVATE-KEY');
    expect(r.stdout).toContain('shared-ok');
    expect(r.stdout).toContain('HOME=/sandbox/home');
    expect(r.stdout).toMatch(/\/root.*No such file/);
  });

  it('does not see planted secret env vars; a granted one is visible', async () => {
    const r = await runIn(sb, ['/usr/bin/env']);
    expect(r.stdout).not.toContain('leak-me');
    expect(r.stdout).not.toContain('not-granted');
    expect(r.stdout).toContain('GRANTED_TOKEN=granted-value');
    expect(
      r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('=')[0])
        .sort(),
    ).toEqual(['GRANTED_TOKEN', 'HOME', 'PATH', 'PWD', 'TMPDIR']);
  });

  it('refuses a secret-looking explicit env var unless granted by exact name', async () => {
    await expect(sb.spawn(['/bin/true'], { env: { GITHUB_TOKEN: 'x' } })).rejects.toHaveTrustCode('SANDBOX_ENV_SECRET');
    await expect(sb.spawn(['/bin/true'], { env: { HOME: '/root' } })).rejects.toHaveTrustCode('SANDBOX_ENV_RESERVED');
    const denied = audit.events.filter((e) => e.action === 'sandbox.spawn' && e.decision === 'deny');
    expect(denied.map((e) => e.code)).toEqual(expect.arrayContaining(['SANDBOX_ENV_SECRET']));
    const r = await runIn(sb, ['/usr/bin/env'], { env: { GRANTED_TOKEN: 'explicit', LOG_LEVEL: 'debug' } });
    expect(r.stdout).toContain('GRANTED_TOKEN=explicit');
    expect(r.stdout).toContain('LOG_LEVEL=debug');
  });

  it('cannot connect to a host unix socket under /run', async () => {
    const path = `/run/trust-test-${randomBytes(6).toString('hex')}.sock`;
    const server: Server = createNetServer((s) => s.end('host-socket-data'));
    await new Promise<void>((res) => server.listen(path, res));
    try {
      // The listener is real and reachable from the host.
      const hostData = await new Promise<string>((res, rej) => {
        const c = connect(path);
        let d = '';
        c.on('data', (b) => (d += b.toString()));
        c.on('end', () => res(d));
        c.on('error', rej);
      });
      expect(hostData).toBe('host-socket-data');
      for (const p of [path, path.replace('/run/', '/var/run/')]) {
        const r = await runIn(sb, [
          NODE,
          '-e',
          `const c=require('net').connect(${JSON.stringify(p)});` +
            "c.on('data',d=>{console.log('GOT',String(d));});c.on('error',e=>{console.log('ERR',e.code);});",
        ]);
        expect(r.stdout).not.toContain('host-socket-data');
        expect(r.stdout).toMatch(/ERR (ENOENT|ECONNREFUSED|EACCES|EPERM)/);
      }
    } finally {
      await new Promise<void>((res) => server.close(() => res()));
      rmSync(path, { force: true });
    }
  });

  it('cannot follow a symlink out of the workspace', async () => {
    const r = await runIn(sb, [
      BASH,
      '-c',
      `cat ${ws}/link-to-secret; ls ${ws}/link-to-home/.ssh; cat ${ws}/link-to-home/.ssh/id_ed25519`,
    ]);
    expect(r.stdout).not.toContain('outside-secret');
    expect(r.stdout).not.toContain('PLANTED-PRIVATE-KEY');
    expect(r.stdout).not.toContain('id_ed25519');
  });

  it('cannot write .git/hooks/pre-commit, .git/config or .bashrc (and leaves no placeholder behind)', async () => {
    const r = await runIn(sb, [
      BASH,
      '-c',
      [
        `echo evil > ${ws}/.git/hooks/pre-commit`,
        `echo evil >> ${ws}/.git/config`,
        `echo evil > ${ws}/.bashrc`,
        `echo evil > ${ws}/.envrc`,
        `mkdir -p ${ws}/.husky/_ && echo evil > ${ws}/.husky/_/pre-commit`,
        `mv ${ws}/.git ${ws}/git-moved`,
        `rm -rf ${ws}/.git/hooks`,
        'true',
      ].join('; '),
    ]);
    expect(r.stderr).toMatch(/Read-only file system|Device or resource busy/);
    expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(join(ws, '.git', 'hooks'))).toBe(true);
    expect(existsSync(join(ws, 'git-moved'))).toBe(false);
    for (const f of ['.bashrc', '.envrc', '.husky', '.npmrc', '.profile'])
      expect(existsSync(join(ws, f)), f).toBe(false);
  });

  it('cannot open raw TCP to the host loopback, or reach a host loopback HTTP service', async () => {
    const server = createNetServer((s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\nhost'));
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    const port = (server.address() as { port: number }).port;
    try {
      const raw = await runIn(sb, [
        BASH,
        '-c',
        `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED; cat /proc/net/route | wc -l`,
      ]);
      expect(raw.stdout).not.toContain('CONNECTED');
      expect(raw.stderr).toMatch(/Connection refused|Network is unreachable/);
      expect(raw.stdout.trim()).toBe('1'); // only the header line: no routes at all
      const http = await runIn(sb, [
        NODE,
        '-e',
        `require('http').get('http://127.0.0.1:${port}/',r=>{console.log('STATUS',r.statusCode)})` +
          ".on('error',e=>console.log('ERR',e.code))",
      ]);
      expect(http.stdout).toMatch(/ERR ECONNREFUSED/);
    } finally {
      await new Promise<void>((res) => server.close(() => res()));
    }
  });

  it('cannot resolve names (no DNS without a grant)', async () => {
    const r = await runIn(sb, [
      BASH,
      '-c',
      'getent ahosts trust-dns-probe.invalid; echo rc=$?; test -e /etc/resolv.conf && echo HAS_RESOLV; true',
    ]);
    expect(r.stdout).toMatch(/rc=2/);
    expect(r.stdout).not.toContain('HAS_RESOLV');
  });

  it('has no capabilities and cannot create a nested user namespace', async () => {
    const r = await runIn(sb, [BASH, '-c', 'grep CapEff /proc/self/status; unshare -U true && echo NESTED; true']);
    expect(r.stdout).toContain('CapEff:\t0000000000000000');
    expect(r.stdout).not.toContain('NESTED');
  });

  it('seccomp refuses io_uring, ptrace and TIOCSTI (distinct from their unfiltered errors)', async () => {
    const r = await runIn(sb, [
      '/usr/bin/perl',
      '-e',
      [
        'syscall(425, 1, 0); print "io_uring=", $!+0, "\n";',
        'syscall(101, 0, 0, 0, 0); print "ptrace=", $!+0, "\n";',
        'my $c = "x"; syscall(16, 0, 0x5412, $c); print "tiocsti=", $!+0, "\n";',
        'syscall(165, 0, 0, 0, 0, 0); print "mount=", $!+0, "\n";',
      ].join(' '),
    ]);
    // EPERM (1) everywhere; without the filter these would be EFAULT (14), 0, ENOTTY (25) and EFAULT/EPERM.
    expect(r.stdout).toBe('io_uring=1\nptrace=1\ntiocsti=1\nmount=1\n');
  });

  it('audits every spawn and exit with a process principal', async () => {
    const r = await runIn(sb, ['/bin/true']);
    const mine = audit.events.filter((e) => (e.details as { runId?: string } | undefined)?.runId === r.exit.runId);
    expect(mine.map((e) => e.action)).toEqual(['sandbox.spawn', 'sandbox.exit']);
    expect(mine[0]?.principal).toEqual({ kind: 'process', id: r.exit.runId });
    expect(mine[0]?.details).toMatchObject({ policy: sb.policyHash });
    expect(sb.policyHash).toMatch(/^[0-9a-f]{64}$/);
  });
});

void execFileSync;

describe('protected symlinks', () => {
  it('refuses (and audits) a run whose writable root holds a symlinked .bashrc', async () => {
    const ws = freshDir('trust-ws-link-');
    const audit = createRecordingAudit();
    symlinkSync('/etc/hostname', join(ws, '.bashrc'));
    const sb = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`, 'stdout'] }, { audit });
    try {
      await expect(sb.spawn(['/bin/true'])).rejects.toHaveTrustCode('SANDBOX_PROTECTED_SYMLINK');
      expect(audit.events.filter((e) => e.decision === 'deny').map((e) => e.code)).toEqual([
        'SANDBOX_PROTECTED_SYMLINK',
      ]);
    } finally {
      await sb.close();
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
