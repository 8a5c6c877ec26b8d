// Regression tests for red-team findings, each named after its attack. Real bubblewrap; fails (never skips) without it.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSandbox } from './plan.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { NODE_ROOTS, freshDir, runIn } from './test-helpers.js';

const SH = '/bin/sh';

describe('hardening (bubblewrap)', () => {
  let ws: string;
  let sb: Sandbox;

  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed (apt-get install bubblewrap)').toBe(true);
    ws = freshDir('trust-hard-');
    sb = await createSandbox(
      { v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'], systemRoots: NODE_ROOTS },
      { env: { PATH: '/usr/bin:/bin' } },
    );
  });
  afterAll(async () => {
    await sb?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it('a grant that resolves through a symlink planted by an earlier run is refused (symlinked grant)', async () => {
    const target = freshDir('trust-target-');
    try {
      writeFileSync(join(target, 'x'), 'host-secret');
      symlinkSync(target, join(ws, 'cache'));
      symlinkSync('/root', join(ws, 'rootlink'));
      await expect(createSandbox({ v: 1, capabilities: [`fs:rw:${ws}/cache`, 'stdout'] })).rejects.toHaveTrustCode(
        'SANDBOX_GRANT_SYMLINK',
      );
      await expect(createSandbox({ v: 1, capabilities: [`fs:ro:${ws}/rootlink`, 'stdout'] })).rejects.toThrow(
        /sensitive root \/root/,
      );
      // Planted after the sandbox was created (the directory it granted replaced): refused at spawn, nothing runs.
      mkdirSync(join(ws, 'later'));
      const later = await createSandbox(
        { v: 1, capabilities: [`fs:rw:${ws}/later`, 'stdout', 'stderr'], systemRoots: NODE_ROOTS },
        { env: { PATH: '/usr/bin:/bin' } },
      );
      try {
        rmSync(join(ws, 'later'), { recursive: true });
        symlinkSync(target, join(ws, 'later'));
        await expect(
          later.spawn([SH, '-c', `echo pwned > ${ws}/later/x`], { cwd: `${ws}/later` }),
        ).rejects.toHaveTrustCode('SANDBOX_GRANT_SYMLINK');
      } finally {
        await later.close();
      }
      expect(readFileSync(join(target, 'x'), 'utf8')).toBe('host-secret');
    } finally {
      for (const l of ['cache', 'rootlink', 'later']) rmSync(join(ws, l), { force: true });
      rmSync(target, { recursive: true, force: true });
    }
  });

  it('cannot read a descriptor the host process inherited without close-on-exec (inherited fd 200)', () => {
    const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    expect(existsSync(dist), 'build @trust/os-sandbox first (dist/index.js)').toBe(true);
    const dir = freshDir('trust-fd-');
    try {
      writeFileSync(join(dir, 'secret'), 'FD-SECRET');
      const child = join(dir, 'child.mjs');
      writeFileSync(
        child,
        `import { readlinkSync } from 'node:fs';
         import { createSandbox } from ${JSON.stringify(dist)};
         process.stdout.write('host-fd200=' + readlinkSync('/proc/self/fd/200') + '\\n');
         const sb = await createSandbox({
           v: 1,
           capabilities: ['stdout', 'stderr'],
           systemRoots: ${JSON.stringify(NODE_ROOTS)},
         });
         const p = await sb.spawn(['/bin/bash', '-c', 'cat <&200; ls /proc/self/fd | tr "\\n" " "']);
         for await (const c of p.stdout) process.stdout.write(c);
         await p.exit;
         await sb.close();`,
      );
      const out = execFileSync(
        '/bin/bash',
        ['-c', `exec 200<${join(dir, 'secret')}; exec "${process.execPath}" ${child}`],
        { encoding: 'utf8' },
      );
      expect(out).toContain(`host-fd200=${join(dir, 'secret')}`);
      expect(out).not.toContain('FD-SECRET');
      expect(out).not.toMatch(/\b200\b/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cannot open AF_VSOCK or netlink sockets (vsock and netlink socket families)', async () => {
    expect(existsSync('/usr/bin/python3'), 'python3 must be installed').toBe(true);
    const script = [
      'import socket',
      'for name, fam, proto in (("vsock", 40, 0), ("netlink-route", 16, 0), ("netlink-audit", 16, 9), ("inet", 2, 0)):',
      '    try:',
      '        socket.socket(fam, socket.SOCK_DGRAM if fam != 40 else ' +
        'socket.SOCK_STREAM, proto).close(); print(name, "open")',
      '    except OSError as e:',
      '        print(name, "errno", e.errno)',
    ].join('\n');
    const r = await runIn(sb, ['/usr/bin/python3', '-c', script], { cwd: ws });
    expect(r.stdout).toContain('vsock errno 1\n');
    expect(r.stdout).toContain('netlink-route errno 1\n');
    expect(r.stdout).toContain('netlink-audit errno 1\n');
    expect(r.stdout).toContain('inet open\n');
  });

  it(
    'cannot redirect git hooks or config through .git/commondir, modules, ' +
      'worktrees, info or a nested repo (git hook planting)',
    async () => {
      const repo = freshDir('trust-gitrepo-');
      try {
        mkdirSync(join(repo, '.git', 'hooks'), { recursive: true });
        mkdirSync(join(repo, '.git', 'modules', 'sub', 'hooks'), { recursive: true });
        writeFileSync(join(repo, '.git', 'config'), '[core]\n');
        writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
        mkdirSync(join(repo, 'vendor', 'lib', '.git', 'hooks'), { recursive: true });
        const git = await createSandbox(
          { v: 1, capabilities: [`fs:rw:${repo}`, 'stdout', 'stderr'], systemRoots: NODE_ROOTS },
          { env: { PATH: '/usr/bin:/bin' } },
        );
        try {
          const r = await runIn(
            git,
            [
              SH,
              '-c',
              [
                'mkdir -p evilgit/hooks && echo evil > evilgit/hooks/pre-commit',
                'echo ../evilgit > .git/commondir',
                'echo evil > .git/modules/sub/hooks/pre-commit',
                'echo "[core] hooksPath=/x" > .git/modules/sub/config',
                'mkdir -p .git/worktrees/w && echo evil > .git/worktrees/w/commondir',
                'mkdir -p .git/info && echo evil > .git/info/attributes',
                'echo evil > .git/objects',
                'echo ref > .git/HEAD',
                'echo evil > vendor/lib/.git/hooks/pre-commit',
                'mv vendor/lib/.git vendor/lib/moved',
                'mkdir -p .vscode && echo evil > .vscode/tasks.json',
                'mkdir -p .github/workflows && echo evil > .github/workflows/ci.yml',
                'echo evil > .pre-commit-config.yaml; echo evil > .gitmodules; echo evil > .gitattributes',
                'echo ok > normal.txt && echo NORMAL-OK',
              ].join('; '),
            ],
            { cwd: repo },
          );
          expect(r.stdout).toContain('NORMAL-OK');
          // Closing removes the placeholders kept for the next run: what is left was written by the run.
          await git.close();
          for (const p of [
            '.git/commondir',
            '.git/modules/sub/hooks/pre-commit',
            '.git/worktrees',
            '.git/info',
            '.git/objects',
            'vendor/lib/.git/hooks/pre-commit',
            'vendor/lib/moved',
            '.vscode',
            '.github',
            '.pre-commit-config.yaml',
            '.gitmodules',
            '.gitattributes',
          ]) {
            expect(existsSync(join(repo, p)), p).toBe(false);
          }
          expect(readFileSync(join(repo, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
          expect(existsSync(join(repo, '.git', 'modules', 'sub', 'config'))).toBe(false);
        } finally {
          await git.close();
        }
      } finally {
        rmSync(repo, { recursive: true, force: true });
      }
    },
  );

  it('host root cannot write /proc/sys/kernel/core_pattern (sysctl write as host root)', async () => {
    const before = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
    // Writes back the exact current value, so the host stays unchanged even if the write got through.
    const r = await runIn(
      sb,
      [
        SH,
        '-c',
        'v=$(cat /proc/sys/kernel/core_pattern); printf "%s\\n" "$v" > /proc/sys/kernel/core_pattern && echo ' +
          'WROTE; echo x > /proc/sysrq-trigger && echo SYSRQ; echo via-fd > /proc/self/fd/1; grep -c "^Pid:" ' +
          '/proc/self/status; awk \'$5 == "/proc" { print "proc", substr($6, 1, 2) }\' /proc/self/mountinfo',
      ],
      { cwd: ws },
    );
    expect(r.stdout).not.toContain('WROTE');
    expect(r.stdout).not.toContain('SYSRQ');
    expect(r.stderr).toMatch(/core_pattern: (Read-only file system|Permission denied)/);
    expect(readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(before);
    // For a host-root run the whole /proc is read-only; reading it and writing through
    // /proc/self/fd (which reaches the file behind it) still work.
    expect(r.stdout).toContain('via-fd\n1\n');
    expect(r.stdout).toContain(process.getuid?.() === 0 ? 'proc ro\n' : 'proc rw\n');
  });

  it(
    'a host user without root cannot write host sysctls either, with ' +
      'no /proc covers in its plan (sysctl write as a user)',
    () => {
      // The plan for a non-root host has no /proc covers; the kernel's own permissions must stop the write.
      const plan = planSandbox(
        { v: 1 },
        [
          SH,
          '-c',
          'v=$(cat /proc/sys/kernel/core_pattern); printf "%s\\n" "$v" > /proc/sys/kernel/core_pattern && echo WROTE',
        ],
        'linux',
        { seccomp: false },
      );
      if (plan.platform !== 'linux') throw new Error('linux plan expected');
      expect(plan.options.filter((o) => o.startsWith('/proc/'))).toEqual([]);
      const before = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
      const asUser =
        process.getuid?.() === 0
          ? ['setpriv', '--reuid', '65534', '--regid', '65534', '--clear-groups', '--inh-caps=-all']
          : [];
      const [file, ...pre] = [...asUser, '/usr/bin/bwrap'];
      const r = spawnSync(file!, [...pre, ...plan.args], { encoding: 'utf8' });
      expect(r.stdout).not.toContain('WROTE');
      expect(r.stderr).toMatch(/core_pattern: Permission denied/);
      expect(readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(before);
    },
  );

  it(
    'host root runs the command as an unprivileged uid that can ' + 'still write granted rw dirs (uid 0 inside)',
    async () => {
      const r = await runIn(
        sb,
        [SH, '-c', `id -u; id -g; echo ok > ${ws}/by-nobody.txt && echo ok > "$HOME/h" && echo WROTE`],
        { cwd: ws },
      );
      if (process.getuid?.() === 0) expect(r.stdout).toMatch(/^65534\n65534\n/);
      else expect(r.stdout).not.toMatch(/^0\n/);
      expect(r.stdout).toContain('WROTE');
      expect(readFileSync(join(ws, 'by-nobody.txt'), 'utf8')).toBe('ok\n');
    },
  );
});
