// The protected list with real bubblewrap: every agent-tool and rc name of the list, and a name a
// policy adds, refuses writes from inside the sandbox, whether it exists on the host or not.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSandbox } from './sandbox.js';
import { freshDir, runIn } from './test-helpers.js';

const FILES = ['.mcp.json', '.ripgreprc', '.gitmodules', '.tool-versions'];
const DIRS = ['.claude', '.cursor', '.vscode', '.idea', '.continue'];
const POLICY = { protectedPaths: ['.tool-versions', '.continue/'] };

// Each attempt prints "<name> ok" only if the write landed.
const attempts = (ws: string): string =>
  [
    `echo seed > ${ws}/seed`,
    ...FILES.flatMap((f) => [
      `echo evil > ${ws}/${f} && echo "${f} ok"`,
      `rm -f ${ws}/${f} && echo "${f} rm ok"`,
      `mv ${ws}/${f} ${ws}/moved-${f} && echo "${f} mv ok"`,
      `ln ${ws}/seed ${ws}/${f} 2>/dev/null && echo "${f} ln ok"`,
      `ln -s seed ${ws}/${f} 2>/dev/null && echo "${f} symlink ok"`,
      `mv ${ws}/seed ${ws}/${f} 2>/dev/null && echo "${f} mv-onto ok"`,
    ]),
    ...DIRS.flatMap((d) => [
      `mkdir -p ${ws}/${d}/commands && echo evil > ${ws}/${d}/commands/x.md && echo "${d} ok"`,
      `echo evil > ${ws}/${d}/settings.json && echo "${d} settings ok"`,
      `mv ${ws}/${d} ${ws}/moved${d} && echo "${d} mv ok"`,
      `rm -rf ${ws}/${d} 2>/dev/null; [ -e ${ws}/${d} ] || echo "${d} rm ok"`,
      `mkdir -p ${ws}/tmpdir/commands && mv -T ${ws}/tmpdir ${ws}/${d} ` +
        `2>/dev/null && echo "${d} mv-onto ok"; rm -rf ${ws}/tmpdir`,
    ]),
    `echo fine > ${ws}/ordinary.txt && echo "ordinary ok"`,
  ].join('; ') + '; true';

describe('protected agent-tool and rc files (bubblewrap)', () => {
  it.each([
    ['do not exist', false],
    ['exist', true],
  ])('refuses writes to every new protected name when they %s', async (_label, exist) => {
    const ws = freshDir('trust-protected-');
    if (exist) {
      for (const f of FILES) writeFileSync(join(ws, f), 'mine\n');
      for (const d of DIRS) {
        mkdirSync(join(ws, d, 'commands'), { recursive: true });
        writeFileSync(join(ws, d, 'settings.json'), 'mine\n');
      }
    }
    const sb = await createSandbox(
      { v: 1, capabilities: [`fs:rw:${ws}`, 'stdout', 'stderr'], ...POLICY },
      { placeholderLingerMs: 0, env: { PATH: '/usr/bin:/bin' } },
    );
    try {
      const r = await runIn(sb, ['/bin/sh', '-c', attempts(ws)]);
      expect(r.exit.code).toBe(0);
      expect(r.stdout.trim().split('\n')).toEqual(['ordinary ok']);
      expect(readFileSync(join(ws, 'ordinary.txt'), 'utf8')).toBe('fine\n');
      if (exist) {
        for (const f of FILES) expect(readFileSync(join(ws, f), 'utf8'), f).toBe('mine\n');
        for (const d of DIRS) {
          expect(readdirSync(join(ws, d)).sort(), d).toEqual(['commands', 'settings.json']);
          expect(readdirSync(join(ws, d, 'commands')), d).toEqual([]);
          expect(readFileSync(join(ws, d, 'settings.json'), 'utf8'), d).toBe('mine\n');
        }
      } else {
        for (const n of [...FILES, ...DIRS]) {
          const p = join(ws, n);
          // Nothing the run wrote is left, and no placeholder either.
          expect(existsSync(p), n).toBe(false);
        }
      }
    } finally {
      await sb.close();
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
