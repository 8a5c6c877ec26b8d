// A grant naming a directory that does not exist (real bubblewrap): refused before anything
// starts, with a code that names it and a hint, at createSandbox and again at spawn (it may be
// removed in between); and the package README's example runs as written.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSandbox } from './sandbox.js';
import { createRecordingAudit, freshDir } from './test-helpers.js';

describe('a grant to a missing directory (bubblewrap)', () => {
  it('is refused by createSandbox with SANDBOX_GRANT_MISSING naming it, and a hint', async () => {
    const gone = join(freshDir('trust-grant-missing-'), 'project');
    for (const cap of [`fs:rw:${gone}`, `fs:ro:${gone}`, `fs:ro:${gone}/sub`]) {
      await expect(createSandbox({ v: 1, capabilities: [cap, 'stdout', 'stderr'] }), cap).rejects.toMatchObject({
        code: expect.toBeTrustCode('SANDBOX_GRANT_MISSING'),
        message: expect.stringContaining(cap),
        hint: expect.stringContaining(`mkdir -p ${cap.slice(6)}`),
      });
    }
  });

  it('removed after createSandbox, it is refused at spawn before anything starts (no exit 125)', async () => {
    const dir = freshDir('trust-grant-removed-');
    const audit = createRecordingAudit();
    const sb = await createSandbox({ v: 1, capabilities: [`fs:rw:${dir}`, 'stdout', 'stderr'] }, { audit });
    try {
      rmSync(dir, { recursive: true });
      await expect(sb.spawn(['/bin/true'])).rejects.toMatchObject({
        code: expect.toBeTrustCode('SANDBOX_GRANT_MISSING'),
        message: expect.stringContaining(dir),
      });
      expect(audit.events.map((e) => `${e.action} ${e.decision} ${e.code ?? ''}`)).toEqual([
        'sandbox.spawn deny SANDBOX_GRANT_MISSING',
      ]);
    } finally {
      await sb.close();
    }
  });
});

describe('the README example', () => {
  it('runs as written (its granted directory exists; the run starts and ends)', () => {
    const dist = (pkg: string): string => fileURLToPath(new URL(`../../${pkg}/dist/index.js`, import.meta.url));
    for (const pkg of ['core', 'os-sandbox']) expect(existsSync(dist(pkg)), `build @trust/${pkg} first`).toBe(true);
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const code = /## Example\n\n```ts example\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code, 'the README has an ## Example ts block').toBeTruthy();
    const script = join(freshDir('trust-readme-'), 'example.mjs');
    writeFileSync(
      script,
      code!
        .replace("'@trust/core'", JSON.stringify(dist('core')))
        .replace("'@trust/os-sandbox'", JSON.stringify(dist('os-sandbox'))),
    );
    try {
      const out = execFileSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
      // "<code> <timedOut> <truncated> <violations> <bytes>": curl ran (no network here, or the
      // page): never bubblewrap's or the launcher's 125.
      const [exitCode, timedOut] = out.trim().split(' ');
      expect(Number.isInteger(Number(exitCode)), out).toBe(true);
      expect(exitCode, out).not.toBe('125');
      expect(timedOut).toBe('false');
    } finally {
      rmSync(join(script, '..'), { recursive: true, force: true });
    }
  });
});
