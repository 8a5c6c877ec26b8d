// Placeholders kept between runs, with real bubblewrap: in place for the next run (still
// read-only), removed once the sandbox is idle or closed, and never a file the user has written.
// Only roots that cannot be overlaid get host placeholders, and only when the policy accepts
// them by name (`host-placeholders`, see refuseUnoverlaid): here the launcher is denied its
// private mount namespace, so nothing can be overlaid.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox, type SandboxProbe } from './probe.js';
import { createSandbox } from './sandbox.js';
import { freshDir, runIn } from './test-helpers.js';

const PLACEHOLDERS = ['.bashrc', '.npmrc', '.husky', '.vscode', '.git'];

/** A workspace (its roots keep host placeholders here: see `unoverlaid` below). */
const otherFsDir = (prefix: string): string => realpathSync(mkdtempSync(join('/dev/shm', prefix)));

/** Polls until none of `names` exists in `dir`; returns those still there (the bound only matters on failure). */
async function waitGone(dir: string, names: readonly string[]): Promise<string[]> {
  for (let i = 0; i < 500; i++) {
    const left = names.filter((n) => existsSync(join(dir, n)));
    if (left.length === 0) return left;
    await new Promise((ok) => setTimeout(ok, 20));
  }
  return names.filter((n) => existsSync(join(dir, n)));
}

describe('placeholders kept between runs (bubblewrap)', () => {
  let probe: SandboxProbe;
  beforeAll(async () => {
    probe = await probeSandbox();
  });
  /** Options under which no root can be overlaid: the launcher pins through bwrap's binds. */
  const unoverlaid = () => ({ probe: { ...probe, pinNamespace: false } });
  const HP = `allowDegraded: ['host-placeholders']`;
  it(
    'stay read-only for the next run and are removed once the ' + 'sandbox has been idle for placeholderLingerMs',
    async () => {
      const ws = otherFsDir('trust-linger-');
      const sb = await createSandbox(
        { v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'], allowDegraded: ['host-placeholders'] },
        { ...unoverlaid(), placeholderLingerMs: 300, env: { PATH: '/usr/bin:/bin' } },
      );
      try {
        expect((await runIn(sb, ['/bin/true'])).exit.code).toBe(0);
        for (const n of PLACEHOLDERS) expect(existsSync(join(ws, n)), n).toBe(true);
        const second = await runIn(sb, [
          '/bin/sh',
          '-c',
          `echo evil > ${ws}/.bashrc; mkdir ${ws}/.husky/x; rm -rf ${ws}/.git; echo ok > ${ws}/fine`,
        ]);
        expect(second.stderr).toMatch(/Read-only file system/);
        expect(readFileSync(join(ws, '.bashrc'), 'utf8')).toBe('');
        expect(readFileSync(join(ws, 'fine'), 'utf8')).toBe('ok\n');
        expect(await waitGone(ws, PLACEHOLDERS)).toEqual([]);
        expect(existsSync(join(ws, 'fine'))).toBe(true);
      } finally {
        await sb.close();
        rmSync(ws, { recursive: true, force: true });
      }
    },
  );

  it('close() removes them at once, but not one the user has written into meanwhile', async () => {
    const ws = otherFsDir('trust-linger-close-');
    const sb = await createSandbox(
      { v: 1, capabilities: [`fs:rw:${ws}`], allowDegraded: ['host-placeholders'] },
      { ...unoverlaid(), placeholderLingerMs: 600_000 },
    );
    try {
      expect((await runIn(sb, ['/bin/true'])).exit.code).toBe(0);
      expect(existsSync(join(ws, '.envrc'))).toBe(true);
      writeFileSync(join(ws, '.envrc'), 'export MINE=1\n');
      await sb.close();
      expect(PLACEHOLDERS.filter((n) => existsSync(join(ws, n)))).toEqual([]);
      expect(readFileSync(join(ws, '.envrc'), 'utf8')).toBe('export MINE=1\n');
    } finally {
      await sb.close();
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it(
    'a process that exits without close() still removes what it kept ' +
      '(ending its prepared run first), and its work directory',
    () => {
      const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
      expect(existsSync(dist), 'build @trust/os-sandbox first (dist/index.js)').toBe(true);
      const ws = otherFsDir('trust-linger-exit-');
      const script = join(freshDir('trust-linger-script-'), 'run.mjs');
      try {
        writeFileSync(
          script,
          `import { existsSync, readdirSync } from 'node:fs';
        import { createSandbox, probeSandbox } from ${JSON.stringify(dist)};
        const probe = { ...(await probeSandbox()), pinNamespace: false };
        const sb = await createSandbox(
          { v: 1, capabilities: ['fs:rw:${ws}'], ${HP} },
          { probe, placeholderLingerMs: 600000 },
        );
        await (await sb.spawn(['/bin/true'])).exit;
        // The second spawn leaves a run prepared (holding the workspace) when the process exits.
        const p = await sb.spawn(['/bin/true']);
        console.log('exit', (await p.exit).code);
        await new Promise((r) => setTimeout(r, 300));
        console.log('kept', ${JSON.stringify(PLACEHOLDERS)}.filter((n) => existsSync('${ws}/' + n)).length);
        const work = readdirSync(process.env.TMPDIR).filter((n) => n.startsWith('trust-sandbox-'));
        console.log('work dir', work.map((n) => process.env.TMPDIR + '/' + n).join(' '));`,
        );
        // The sandbox makes its work directory under the process's temporary directory.
        const tmp = freshDir('trust-linger-tmp-');
        const out = execFileSync(process.execPath, [script], {
          encoding: 'utf8',
          env: { ...process.env, TMPDIR: tmp },
        });
        expect(out).toContain('exit 0');
        expect(out).toContain(`kept ${PLACEHOLDERS.length}`);
        expect(out).toMatch(/work dir \/.*\/trust-sandbox-/);
        expect(PLACEHOLDERS.filter((n) => existsSync(join(ws, n)))).toEqual([]);
        expect(readdirSync(tmp)).toEqual([]);
        rmSync(tmp, { recursive: true });
      } finally {
        rmSync(ws, { recursive: true, force: true });
        rmSync(join(script, '..'), { recursive: true, force: true });
      }
    },
  );
});
