// Nested writable roots (/w and /w/sub) with real bubblewrap and the compiled launcher: a run that
// swaps `sub` for a symlink cannot make the launcher create or remove anything where the link
// points (its sweep and pins work on descriptors, without following any symlink). The grammar now
// refuses nested fs grants, so these run the launcher directly: the descriptor work is the defence
// in depth for roots the launcher is handed by other means.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLauncher, type Launcher } from './launcher.js';
import { freshDir } from './test-helpers.js';

describe('nested writable roots and a symlink swap (bubblewrap)', () => {
  let dir: string;
  let launcher: Launcher;
  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    dir = freshDir('trust-nested-roots-');
    launcher = await ensureLauncher({ cacheDir: join(dir, 'cache') });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const layout = (name: string): { w: string; sub: string; outside: string } => {
    const w = join(dir, name, 'w');
    const outside = join(dir, name, 'outside');
    mkdirSync(join(w, 'sub'), { recursive: true });
    mkdirSync(outside);
    return { w, sub: join(w, 'sub'), outside };
  };
  // The launcher with a lifeline on fd 5, as the host runs it; `cmd` stands in for bwrap.
  const launch = (args: readonly string[], cmd: readonly string[]) =>
    spawnSync(launcher.path, ['--lifeline', '5', ...args, '--', ...cmd], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'ignore', 'pipe'],
    });

  it(
    'the sweep after a run removes its placeholder through the ' + 'held root, not through a symlink swapped in for it',
    () => {
      const { w, sub, outside } = layout('sweep');
      writeFileSync(join(outside, '.bashrc'), ''); // an empty file of someone else's, where the link will point
      const r = launch(
        ['--hold', w, '--hold', sub, '--sweep', 'f', `${sub}/.bashrc`],
        ['/bin/sh', '-c', `touch ${sub}/.bashrc && mv ${sub} ${w}/sub.real && ln -s ${outside} ${sub}`],
      );
      expect(r.status, r.stderr).toBe(0);
      expect(readdirSync(outside)).toEqual(['.bashrc']);
      expect(readdirSync(join(w, 'sub.real'))).toEqual([]); // the run's own placeholder is gone
    },
  );

  it(
    'a pin below a root whose directory became a symlink creates ' + 'nothing where it points, and the run is refused',
    () => {
      const { w, sub, outside } = layout('pin');
      const empty = join(dir, 'pin', 'empty');
      const emptyDir = join(dir, 'pin', 'empty.d');
      writeFileSync(empty, '');
      mkdirSync(emptyDir);
      rmSync(sub, { recursive: true });
      symlinkSync(outside, sub);
      const r = launch(
        ['--hold', w, '--pin-empty', empty, emptyDir, '--pin', 'f', `${sub}/.bashrc`, '--pin', 'd', `${sub}/.husky`],
        ['/bin/true'],
      );
      expect(r.status).toBe(125);
      expect(r.stderr).toMatch(/Too many levels of symbolic links/);
      expect(readdirSync(outside)).toEqual([]);
    },
  );
});
