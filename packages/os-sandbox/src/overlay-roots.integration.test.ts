// Writable roots that the sandbox's work directory and the per-user cache cannot serve as overlay
// work bases for (real bubblewrap): a workspace on another filesystem (/dev/shm, a tmpfs, while
// the work directory and the cache are on the root filesystem) is still overlaid, through a
// private directory of this user on its own filesystem, and stays untouched; where no overlay can
// be made at all, the grant is refused before anything runs instead of filling the workspace with
// placeholders, unless the policy accepts `host-placeholders` by name.
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox, type SandboxProbe } from './probe.js';
import { createSandbox } from './sandbox.js';
import { freshDir, runIn } from './test-helpers.js';

/** A workspace on /dev/shm, with .git present and every other protected name missing. */
function otherFsWorkspace(): string {
  const ws = realpathSync(mkdtempSync('/dev/shm/trust-overlay-roots-'));
  mkdirSync(join(ws, '.git'));
  writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(ws, 'README'), 'hello\n');
  return ws;
}
const listing = (dir: string): string[] => readdirSync(dir).sort();

describe('writable roots that the work directory cannot overlay (bubblewrap)', () => {
  let probe: SandboxProbe;
  beforeAll(async () => {
    probe = await probeSandbox();
    expect(probe.bwrap, 'bubblewrap is required').toBeTruthy();
    expect(statSync('/dev/shm').dev, 'this test needs /dev/shm on another filesystem than the temp dir').not.toBe(
      statSync(freshDir('trust-dev-')).dev,
    );
  });

  it(
    'a root on another filesystem is overlaid through a private dir on that ' +
      'filesystem: no placeholder in the workspace, protected names read-only',
    async () => {
      const ws = otherFsWorkspace();
      const before = listing(ws);
      const sb = await createSandbox(
        { v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'] },
        { env: { PATH: '/usr/bin:/bin' } },
      );
      try {
        expect(sb.degraded).toEqual([]);
        const r = await runIn(
          sb,
          [
            '/bin/sh',
            '-c',
            `ls -a ${ws}; echo evil > ${ws}/.bashrc; ` +
              `mkdir ${ws}/.claude/x; echo ok > ${ws}/fine; ls -a ${ws} > ` +
              `/dev/null`,
          ],
          { cwd: ws },
        );
        // Inside, the missing names exist (read-only); on the host they never appear.
        expect(r.stdout).toMatch(/\.bashrc/);
        expect(r.stderr).toMatch(/Read-only file system/);
        expect(readFileSync(join(ws, 'fine'), 'utf8')).toBe('ok\n');
        expect(listing(ws)).toEqual([...before, 'fine'].sort());
        for (let i = 0; i < 3; i++) expect((await runIn(sb, ['/bin/true'], { cwd: ws })).exit.code).toBe(0);
        expect(listing(ws)).toEqual([...before, 'fine'].sort());
        // The work base: this user's own 0700 directory beside the workspace, on its filesystem.
        const base = join(dirname(ws), `.trust-overlay-${process.getuid!()}`);
        const st = lstatSync(base);
        expect(st.isDirectory() && (st.mode & 0o777) === 0o700 && st.uid === process.getuid!()).toBe(true);
      } finally {
        await sb.close();
        rmSync(ws, { recursive: true, force: true });
      }
      expect(
        listing(join(dirname(ws), `.trust-overlay-${process.getuid!()}`)).filter((n) => n.startsWith('ovl.')),
      ).toEqual([]);
    },
  );

  it(
    "someone else's entry at the private directory's name is " + 'never used: the next ancestor, or a refusal',
    async () => {
      const parent = realpathSync(mkdtempSync('/dev/shm/trust-overlay-squat-'));
      const ws = join(parent, 'ws');
      mkdirSync(ws);
      // A squatter's directory (mode 0777) where this user's private one would go.
      mkdirSync(join(parent, `.trust-overlay-${process.getuid!()}`), { mode: 0o777 });
      writeFileSync(join(parent, `.trust-overlay-${process.getuid!()}`, 'planted'), '');
      const sb = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`] });
      try {
        expect((await runIn(sb, ['/bin/true'], { cwd: ws })).exit.code).toBe(0);
        expect(listing(ws)).toEqual([]);
        expect(listing(join(parent, `.trust-overlay-${process.getuid!()}`))).toEqual(['planted']);
      } finally {
        await sb.close();
        rmSync(parent, { recursive: true, force: true });
      }
    },
  );

  it(
    'a parent others may write without the sticky bit is passed over ' +
      '(they could swap the private directory for a link)',
    async () => {
      const parent = realpathSync(mkdtempSync('/dev/shm/trust-overlay-open-'));
      chmodSync(parent, 0o777);
      const ws = join(parent, 'ws');
      mkdirSync(ws);
      const sb = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`] });
      try {
        expect((await runIn(sb, ['/bin/true'], { cwd: ws })).exit.code).toBe(0);
        expect(listing(ws)).toEqual([]);
        expect(listing(parent)).toEqual(['ws']);
      } finally {
        await sb.close();
        rmSync(parent, { recursive: true, force: true });
      }
    },
  );

  for (const [how, options] of [
    ['no private mount namespace for the launcher', () => ({ probe: { ...probe, pinNamespace: false } })],
    ['the socat fallback (no launcher)', () => ({ bridge: 'socat' as const })],
  ] as const) {
    it(
      `${how}: the writable grant is refused before anything runs, naming ` +
        `it; accepted only with allowDegraded host-placeholders`,
      async () => {
        const ws = freshDir('trust-overlay-refused-');
        try {
          await expect(createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`] }, options())).rejects.toMatchObject({
            code: expect.toBeTrustCode('SANDBOX_ROOT_NOT_OVERLAYABLE'),
            message: expect.stringContaining(ws),
            hint: expect.stringMatching(/host-placeholders/),
          });
          expect(listing(ws)).toEqual([]);
          const sb = await createSandbox(
            { v: 1, capabilities: [`fs:rw:${ws}`], allowDegraded: ['host-placeholders'] },
            { ...options(), placeholderLingerMs: 0 },
          );
          try {
            expect(sb.degraded).toContain('host-placeholders');
            expect((await runIn(sb, ['/bin/true'], { cwd: ws })).exit.code).toBe(0);
          } finally {
            await sb.close();
          }
        } finally {
          rmSync(ws, { recursive: true, force: true });
        }
      },
    );
  }
});
