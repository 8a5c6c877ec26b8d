import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createTempHome, BIN, runCli, runCliAt } from './run-cli.test-helper.js';
import { doctorSchema, failureSchema, versionSchema } from './json-schemas.js';

const tmp = createTempHome();
const CLI_DIR = dirname(dirname(BIN));
afterAll(() => tmp.cleanup());

describe('trust (built binary)', () => {
  it('--help lists every command and exits 0', async () => {
    const r = await runCli(['--help'], { home: tmp.home });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('doctor');
    expect(r.stdout).toContain('Exit codes');
    expect(r.stderr).toBe('');
  });

  it('--version --json matches its schema', async () => {
    const r = await runCli(['--version', '--json'], { home: tmp.home });
    expect(r.code).toBe(0);
    expect(versionSchema.parse(r.json()).result.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('an unknown command is a usage error with did-you-mean', async () => {
    const r = await runCli(['doctr'], { home: tmp.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error[CLI_USAGE_UNKNOWN_COMMAND]');
    expect(r.stderr).toContain("did you mean 'trust doctor'?");
  });
});

describe('trust doctor (built binary)', () => {
  it('reports every check as schema-valid JSON; bwrap and Chromium are present on this test machine', async () => {
    const r = await runCli(['doctor', '--json'], { home: tmp.home });
    expect(r.code).toBe(0);
    const doc = doctorSchema.parse(r.json());
    expect(doc.result.checks.map((c) => c.id)).toEqual([
      'node',
      'bwrap',
      'userns',
      'netns',
      'seccomp',
      'landlock',
      'cc',
      'socat',
      'seatbelt',
      'chromium',
      'sqlite',
    ]);
    const byId = Object.fromEntries(doc.result.checks.map((c) => [c.id, c]));
    expect(byId.node?.status).toBe('ok');
    expect(byId.bwrap?.status).toBe('ok');
    expect(byId.chromium?.status).toBe('ok');
    expect(byId.sqlite?.status).toBe('ok');
    expect(byId.cc?.status).toBe('ok');
    expect(byId.socat?.status).toBe('ok');
    for (const c of doc.result.checks) if (c.status === 'missing') expect(c.remedy).toBeTruthy();
    expect(r.stderr).toContain('› checking');
  });

  it('names the remedy when bwrap and Chromium are not on PATH, without colour off a TTY', async () => {
    const r = await runCli(['doctor'], { home: tmp.home, env: { PATH: '/nonexistent' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/✗ bubblewrap.*\n\s+fix: apt-get install bubblewrap/);
    expect(r.stdout).toMatch(/✗ Chromium.*\n\s+fix: apt-get install chromium/);
    expect(r.stdout).not.toContain('\u001b[');
  });

  it('--strict exits 1 when something is missing', async () => {
    const r = await runCli(['doctor', '--strict', '--json'], { home: tmp.home, env: { PATH: '/nonexistent' } });
    expect(r.code).toBe(1);
    expect(doctorSchema.parse(r.json()).result.ok).toBe(false);
  });

  it(
    '--strict passes on a machine with everything trust uses, ' + 'whatever Landlock says (trust does not apply it)',
    async () => {
      const r = await runCli(['doctor', '--strict', '--json'], { home: tmp.home });
      const doc = doctorSchema.parse(r.json());
      expect(doc.result.checks.find((c) => c.id === 'landlock')).toMatchObject({ status: 'skipped' });
      expect(doc.result.checks.filter((c) => c.status !== 'ok' && c.status !== 'skipped')).toEqual([]);
      expect(r.code).toBe(0);
    },
  );

  it('gives an install from the registry no checkout advice (pnpm, scripts/bootstrap.sh)', async () => {
    // The built CLI outside a checkout, as an npm install lays it out: bin, dist, node_modules.
    const app = join(tmp.home, 'npm-install', 'node_modules', '@trust', 'cli');
    mkdirSync(app, { recursive: true });
    for (const part of ['bin', 'dist', 'package.json'])
      cpSync(join(CLI_DIR, part), join(app, part), { recursive: true });
    symlinkSync(join(CLI_DIR, 'node_modules'), join(app, 'node_modules'));
    const r = await runCliAt(join(app, 'bin', 'trust.cjs'), ['doctor'], {
      home: tmp.home,
      env: { PATH: '/nonexistent' },
    });
    expect(r.stdout).toMatch(/fix: apt-get install bubblewrap\n/);
    expect(r.stdout).toMatch(/fix: apt-get install gcc libc6-dev\n/);
    expect(r.stdout).not.toContain('bootstrap.sh');
    expect(r.stdout).not.toContain('pnpm');
    const inRepo = await runCli(['doctor'], { home: tmp.home, env: { PATH: '/nonexistent' } });
    expect(inRepo.stdout).toContain('scripts/bootstrap.sh');
  });

  it('rejects an unknown flag with exit 2 and a JSON error', async () => {
    const r = await runCli(['doctor', '--strikt', '--json'], { home: tmp.home });
    expect(r.code).toBe(2);
    expect(failureSchema.parse(r.json()).error).toMatchObject({
      code: expect.toBeTrustCode('CLI_USAGE_UNKNOWN_OPTION'),
      hint: "did you mean '--strict'?",
    });
  });
});
