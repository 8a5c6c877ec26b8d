// Escape attempts against the real bubblewrap sandbox, beyond the package's own escape suite:
// /proc and /dev views, abstract and IPv6 loopback sockets, argv/cwd/env injection, and a
// double-forked daemon that tries to outlive the timeout. Fails (never skips) without bwrap.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, probeSandbox, type Sandbox } from '@trust/os-sandbox';

async function run(sb: Sandbox, argv: readonly string[], options: Record<string, unknown> = {}) {
  const p = await sb.spawn(argv, options);
  const read = async (s: NodeJS.ReadableStream) => {
    const chunks: Buffer[] = [];
    for await (const c of s) chunks.push(Buffer.from(c as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  };
  const [stdout, stderr, exit] = await Promise.all([read(p.stdout), read(p.stderr), p.exit]);
  return { stdout, stderr, exit };
}

function listen(server: Server, ...args: unknown[]): Promise<void> {
  return new Promise((ok, fail) => {
    server.once('error', fail);
    (server.listen as (...a: unknown[]) => void)(...args, () => ok());
  });
}

describe('attack: sandbox escapes (bubblewrap)', () => {
  const tag = randomBytes(5).toString('hex');
  const shmFile = `/dev/shm/trust-attack-${tag}`;
  const abstractName = `\0trust-attack-${tag}`;
  let ws: string;
  let sb: Sandbox;
  let abstract: Server;
  let v6: Server;
  let v6Port = 0;

  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'trust-attack-ws-')));
    writeFileSync(shmFile, 'HOST-SHM-SECRET');
    abstract = createServer((s) => s.end('ABSTRACT-HOST-SECRET'));
    await listen(abstract, abstractName);
    v6 = createServer((s) => s.end('V6-HOST-SECRET'));
    await listen(v6, 0, '::1');
    v6Port = (v6.address() as { port: number }).port;
    sb = await createSandbox(
      { v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'] },
      {
        env: {
          PATH: '/usr/bin:/bin',
          SECRET_TOKEN: 'HOST-ENV-SECRET',
          DATABASE_URL: 'postgres://u:HOST-ENV-SECRET@db/x',
        },
        placeholderLingerMs: 0,
      },
    );
  });

  afterAll(async () => {
    await sb?.close();
    await Promise.all([abstract, v6].map((s) => new Promise((ok) => (s ? s.close(ok) : ok(undefined)))));
    rmSync(shmFile, { force: true });
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it(
    '/proc shows only the sandbox: no host pids, no host env in ' + 'any environ, no host root via /proc/1/root',
    async () => {
      const r = await run(sb, [
        '/bin/bash',
        '-c',
        [
          'ls /proc | grep -cE "^[0-9]+$"',
          'cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c HOST-ENV-SECRET',
          'cat /proc/1/root/etc/shadow /proc/self/root/etc/shadow 2>&1 | head -c 200',
          'readlink /proc/1/root',
          'true',
        ].join('; '),
      ]);
      const [pids, envHits] = r.stdout.split('\n');
      expect(Number(pids)).toBeLessThan(10);
      expect(envHits).toBe('0');
      expect(r.stdout).not.toMatch(/root:[^:]*:\d+:/);
      expect(r.stdout).toMatch(/No such file/);
    },
  );

  it('/dev and /sys are private: no host /dev/shm file, no block devices, no /sys', async () => {
    const r = await run(sb, [
      '/bin/bash',
      '-c',
      `cat ${shmFile} 2>&1; ls /dev | tr "\\n" " "; echo; ls /sys 2>&1; true`,
    ]);
    expect(r.stdout).not.toContain('HOST-SHM-SECRET');
    expect(r.stdout).not.toMatch(/\b(sda|vda|nvme\d|mem|kmem|kmsg|port)\b/);
    expect(r.stdout).toMatch(/cannot access '\/sys'|No such file/);
  });

  it('cannot reach a host abstract unix socket or a host listener on ::1', async () => {
    const script = [
      `const net=require('net');`,
      `const t=(o,l)=>new Promise(r=>{const c=net.connect(o);`,
      `c.on('data',d=>{console.log(l,'GOT',String(d));r()});c.on('error',e=>{console.log(l,'ERR',e.code);r()})});`,
      `(async()=>{await t(${JSON.stringify(abstractName)},'abstract');`,
      `await t({host:'::1',port:${v6Port}},'v6');await t({host:'::ffff:127.0.0.1',port:${v6Port}},'mapped')})()`,
    ].join('');
    const r = await run(sb, ['/usr/bin/node', '-e', script]);
    expect(r.stdout).not.toContain('HOST-SECRET');
    // socket(AF_UNIX) is refused by the seccomp program unless the policy names unixSockets; the
    // network namespace would hide the host's abstract sockets even then.
    expect(r.stdout).toMatch(/abstract ERR EPERM/);
    expect(r.stdout).toMatch(/v6 ERR (ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL)/);
  });

  it('argv cannot inject bubblewrap options (they are the command, not flags)', async () => {
    const r = await run(sb, ['--bind', '/', '/host', '/bin/ls', '/host']);
    expect(r.exit.code).not.toBe(0);
    const r2 = await run(sb, ['/bin/sh', '-c', 'ls /host 2>&1; echo done', '--bind', '/', '/host']);
    expect(r2.stdout).toMatch(/No such file/);
  });

  it('cwd outside the grants and invalid env names are refused before spawning', async () => {
    for (const cwd of ['/root', '/proc/1/root', '/etc', '/']) {
      await expect(sb.spawn(['/bin/pwd'], { cwd }), cwd).rejects.toHaveTrustCode('SANDBOX_CWD_NOT_GRANTED');
    }
    // A ".." segment is refused as such, before any grant is asked.
    for (const cwd of [`${ws}/..`, `${ws}/../`, `${ws}/x/..`]) {
      await expect(sb.spawn(['/bin/pwd'], { cwd }), cwd).rejects.toHaveTrustCode('SANDBOX_CWD_INVALID');
    }
    for (const env of [{ 'A=B': 'x' }, { '': 'x' }, { A: 'x\0y' }] as Record<string, string>[]) {
      await expect(sb.spawn(['/usr/bin/env'], { env }), JSON.stringify(env)).rejects.toMatchObject({
        code: expect.stringMatching(/^SANDBOX_ENV_/),
      });
    }
  });

  it('a setsid double-forked daemon does not outlive the timeout', async () => {
    const marker = `trustattack${tag}`;
    const r = await run(
      sb,
      [
        '/bin/bash',
        '-c',
        `setsid nohup bash -c 'exec -a ${marker} sleep 60' >/dev/null 2>&1 & ` +
          `disown; (setsid bash -c 'exec -a ${marker}b sleep 61' &); sleep 30`,
      ],
      { timeoutMs: 300 },
    );
    expect(r.exit.timedOut).toBe(true);
    let survivors = '';
    for (let i = 0; i < 20; i++) {
      try {
        survivors = execFileSync('pgrep', ['-af', marker]).toString();
      } catch {
        survivors = '';
        break;
      }
      await new Promise((ok) => setTimeout(ok, 50));
    }
    expect(survivors).toBe('');
  });

  it(
    'a read-only grant nested in a writable one cannot be renamed away and replaced by a symlink ' +
      '(directly or through the directory above it), so the next run binds the real directory',
    async () => {
      // Nested grants were accepted once and then refused: a run could rename the read-only
      // subdirectory away and put a symlink in its place for the next run's bind to follow. Now every
      // nested entry, and every writable directory between it and the outer grant, is a mount point.
      const root = realpathSync(mkdtempSync(join(tmpdir(), 'trust-attack-nested-')));
      try {
        mkdirSync(join(root, 'ro'));
        mkdirSync(join(root, 'x', 'deep'), { recursive: true });
        const caps = [`fs:rw:${root}`, `fs:ro:${root}/ro`, `fs:ro:${root}/x/deep`, 'stdout', 'stderr'];
        const sb = await createSandbox({ v: 1, capabilities: caps }, { env: { PATH: '/usr/bin:/bin' } });
        try {
          const p = await sb.spawn([
            '/bin/sh',
            '-c',
            `mv ${root}/ro ${root}/ro2 2>/dev/null && ln -s /etc ${root}/ro; ` +
              `mv ${root}/x ${root}/x2 2>/dev/null && mkdir ${root}/x && ln -s /etc ${root}/x/deep; echo done`,
          ]);
          expect((await p.exit).code).toBe(0);
        } finally {
          await sb.close();
        }
        expect(lstatSync(join(root, 'ro')).isDirectory()).toBe(true);
        expect(lstatSync(join(root, 'x', 'deep')).isDirectory()).toBe(true);
        expect(existsSync(join(root, 'ro2')) || existsSync(join(root, 'x2'))).toBe(false);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );

  for (const linger of [0, 100])
    it(
      `a run cannot write a protected path after another run over the same root ends ` +
        `(placeholders outlive every run that needs them; linger ${linger} ms)`,
      async () => {
        // Run A creates the read-only placeholders (ws has no .bashrc, .git, .husky). Run B starts
        // while A lasts, so it binds over A's placeholders as if they were the user's files. When A
        // ends, removing "its" placeholders on the host would silently detach B's read-only mounts
        // (the kernel drops mounts whose mount point is unlinked from another namespace), and B could
        // then plant .bashrc or a .git directory. Two sandboxes on one root, as two agents would have.
        // With linger 0 A's launcher tries to remove them as A ends; with 100 ms A's idle sweep tries
        // while B is still running.
        // Roots that can be overlaid get no host placeholders at all. Placeholders are the fallback
        // where no overlay is possible (here: no private mount namespace for the launcher), and only
        // when the policy accepts `host-placeholders`; that fallback must still hold.
        const root = realpathSync(mkdtempSync(join(tmpdir(), 'trust-attack-shared-')));
        const probe = { ...(await probeSandbox()), pinNamespace: false };
        const opts = { env: { PATH: '/usr/bin:/bin' }, placeholderLingerMs: linger, probe };
        const policy = (): Parameters<typeof createSandbox>[0] => ({
          v: 1,
          capabilities: [`fs:rw:${root}`, 'stdout', 'stderr'],
          allowDegraded: ['host-placeholders'],
        });
        const a = await createSandbox(policy(), opts);
        const b = await createSandbox(policy(), opts);
        try {
          const first = await a.spawn(['/bin/bash', '-c', `while [ ! -e ${root}/b-started ]; do sleep 0.05; done`], {
            timeoutMs: 20_000,
          });
          for (let i = 0; i < 400 && !existsSync(join(root, '.bashrc')); i++)
            await new Promise((ok) => setTimeout(ok, 25));
          expect(existsSync(join(root, '.bashrc')), 'run A has its placeholders').toBe(true);
          const second = run(
            b,
            [
              '/bin/bash',
              '-c',
              [
                `touch ${root}/b-started`,
                // Keep trying for a while after A is gone: a removed placeholder would let one of these through.
                `for i in $(seq 60); do echo evil > ${root}/.bashrc 2>/dev/null && echo ` +
                  `WROTE-BASHRC; mkdir ${root}/.git 2>/dev/null && echo MADE-GIT; ` +
                  `mkdir ${root}/.husky 2>/dev/null && echo MADE-HUSKY; sleep 0.05; done`,
                'true',
              ].join('; '),
            ],
            { timeoutMs: 20_000 },
          );
          expect((await first.exit).code).toBe(0);
          const r = await second;
          expect(r.stdout).not.toMatch(/WROTE-BASHRC|MADE-GIT|MADE-HUSKY/);
          expect(existsSync(join(root, '.bashrc')) ? readFileSync(join(root, '.bashrc'), 'utf8') : '').toBe('');
        } finally {
          await a.close();
          await b.close();
          rmSync(root, { recursive: true, force: true });
        }
      },
    );

  it(
    'a workspace without .git cannot get one (no hooks dir, no ' + 'gitfile), and no placeholder is left on the host',
    async () => {
      const r = await run(sb, [
        '/bin/bash',
        '-c',
        `cd ${ws}; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; echo 'gitdir: ` +
          `../evil' > .git; echo evil > .git/commondir; mkdir -p .husky/_; true`,
      ]);
      expect(r.stderr).toMatch(/Read-only file system|Is a directory/);
      expect(existsSync(join(ws, '.git'))).toBe(false);
      expect(existsSync(join(ws, '.husky'))).toBe(false);
    },
  );
});
