import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createShell } from './shell-interpreter.js';
import { createFakeShellGate } from './shell-test-gate.js';
import { DELIBERATE, FIXTURES, SCRIPTS } from './shell-bash-diff.cases.js';

// Differential test: every script of the table runs in real bash (in a fresh temp directory
// holding the fixtures) and in adf_shell (over the same files in a fake gate); stdout and the
// exit status must be identical. Needs /bin/bash, and fails (never skips) without it.
const BASH = '/bin/bash';

function runBash(script: string): { stdout: string; exitCode: number } {
  const dir = mkdtempSync(join(tmpdir(), 'adf-shell-diff-'));
  try {
    for (const [name, content] of Object.entries(FIXTURES)) writeFileSync(join(dir, name), content);
    const r = spawnSync(BASH, ['--norc', '--noprofile', '-c', script], {
      cwd: dir,
      input: '',
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' },
    });
    if (r.error) throw r.error;
    return { stdout: r.stdout, exitCode: r.status ?? 128 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const shell = createShell({ gate: createFakeShellGate() });
async function runOurs(script: string): Promise<{ stdout: string; exitCode: number }> {
  const gate = createFakeShellGate({ files: FIXTURES });
  const r = await createShell({ gate }).run(script);
  return { stdout: r.stdout, exitCode: r.exitCode };
}

describe('adf_shell against real bash', () => {
  it('bash is installed', () => {
    expect(existsSync(BASH)).toBe(true);
    expect(shell.describe().length).toBeGreaterThan(0);
  });

  it('the table is a few hundred scripts, each listed once', () => {
    expect(SCRIPTS.length).toBeGreaterThanOrEqual(300);
    expect(new Set(SCRIPTS).size).toBe(SCRIPTS.length);
    for (const s of Object.keys(DELIBERATE)) expect(SCRIPTS).toContain(s);
  });

  it.each(SCRIPTS.filter((s) => !(s in DELIBERATE)).map((s) => [s]))('%s', async (script) => {
    const expected = runBash(script);
    const ours = await runOurs(script);
    expect(ours).toEqual(expected);
  });

  it.each(Object.entries(DELIBERATE))('deliberate difference: %s (%s)', async (script) => {
    expect(await runOurs(script)).not.toEqual(runBash(script));
  });
});
