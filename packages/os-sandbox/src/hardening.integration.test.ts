// Regression tests for red-team findings, each named after its attack. Real bubblewrap; fails (never skips) without it.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from './sandbox.js';
import { NODE_ROOTS, freshDir, runIn } from './test-helpers.js';

const SH = '/bin/sh';

describe('hardening (bubblewrap)', () => {
  let ws: string;
  let sb: Sandbox;

  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed (apt-get install bubblewrap)').toBe(true);
    ws = freshDir('trust-hard-');
    sb = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'], systemRoots: NODE_ROOTS }, { env: { PATH: '/usr/bin:/bin' } });
  });
  afterAll(async () => {
    await sb?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it('host root cannot write /proc/sys/kernel/core_pattern (sysctl write as host root)', async () => {
    const before = readFileSync('/proc/sys/kernel/core_pattern', 'utf8');
    // Writes back the exact current value, so the host stays unchanged even if the write got through.
    const r = await runIn(sb, [SH, '-c', 'v=$(cat /proc/sys/kernel/core_pattern); printf "%s\\n" "$v" > /proc/sys/kernel/core_pattern && echo WROTE; echo x > /proc/sysrq-trigger && echo SYSRQ'], {
      cwd: ws,
    });
    expect(r.stdout).not.toContain('WROTE');
    expect(r.stdout).not.toContain('SYSRQ');
    expect(r.stderr).toMatch(/core_pattern: (Read-only file system|Permission denied)/);
    expect(readFileSync('/proc/sys/kernel/core_pattern', 'utf8')).toBe(before);
  });

  it('host root runs the command as an unprivileged uid that can still write granted rw dirs (uid 0 inside)', async () => {
    const r = await runIn(sb, [SH, '-c', `id -u; id -g; echo ok > ${ws}/by-nobody.txt && echo ok > "$HOME/h" && echo WROTE`], { cwd: ws });
    if (process.getuid?.() === 0) expect(r.stdout).toMatch(/^65534\n65534\n/);
    else expect(r.stdout).not.toMatch(/^0\n/);
    expect(r.stdout).toContain('WROTE');
    expect(readFileSync(join(ws, 'by-nobody.txt'), 'utf8')).toBe('ok\n');
  });
});
