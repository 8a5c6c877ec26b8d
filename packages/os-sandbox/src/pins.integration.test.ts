// The launcher's --pin with real bubblewrap, both ways: binds made in the launcher's private
// namespace before bwrap starts, and the fallback that hands the same paths to bwrap.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLauncher, type Launcher } from './launcher.js';
import { freshDir } from './test-helpers.js';

describe('launcher --pin (bubblewrap)', () => {
  let dir: string;
  let launcher: Launcher;
  let empty: { file: string; dir: string };
  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    dir = freshDir('trust-pins-');
    launcher = await ensureLauncher({ cacheDir: join(dir, 'cache') });
    empty = { file: join(dir, 'empty'), dir: join(dir, 'empty.d') };
    writeFileSync(empty.file, '', { mode: 0o444 });
    mkdirSync(empty.dir, { mode: 0o555 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  interface PinRun {
    /** Launcher options before --hold (e.g. --pin-via-bwrap). */
    readonly extra?: readonly string[];
    /** Pins as [kind, name in ws]; f and d ones are swept too. Default: .bashrc, .husky and .git. */
    readonly pins?: readonly (readonly [string, string])[];
    /** Who runs the launcher (a setpriv prefix), and the copies of it and the empty sources it can read. */
    readonly as?: {
      readonly prefix: readonly string[];
      readonly launcher: string;
      readonly empty: { readonly file: string; readonly dir: string };
    };
    /**
     * bwrap's options from a regular file on fd 3 (`--args 3`), as the spawn server passes them:
     * the launcher then makes its mounts while bwrap starts. Otherwise they are bwrap's argv.
     */
    readonly optionsFile?: boolean;
  }

  /** Runs `script` in bwrap over `ws` with protected paths pinned by the launcher; fd 5 is the lifeline. */
  function runPinned(ws: string, script: string, run: PinRun = {}) {
    const as = run.as ?? { prefix: [], launcher: launcher.path, empty };
    const pins = run.pins ?? [
      ['f', '.bashrc'],
      ['d', '.husky'],
      ['s', '.git'],
    ];
    const [file, ...pre] = [...as.prefix, as.launcher];
    const options = [
      '--ro-bind',
      '/usr',
      '/usr',
      '--symlink',
      'usr/bin',
      '/bin',
      '--symlink',
      'usr/lib',
      '/lib',
      '--symlink',
      'usr/lib64',
      '/lib64',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--bind',
      ws,
      ws,
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--die-with-parent',
      '--cap-drop',
      'ALL',
      '--remount-ro',
      '/',
    ];
    const optionsFile = join(dir, `options-${process.hrtime.bigint()}`);
    if (run.optionsFile) writeFileSync(optionsFile, options.map((o) => `${o}\0`).join(''));
    return spawnSync(
      file!,
      [
        ...pre,
        '--lifeline',
        '5',
        ...(run.extra ?? []),
        '--hold',
        ws,
        ...pins.filter(([k]) => k === 'f' || k === 'd').flatMap(([k, n]) => ['--sweep', k, `${ws}/${n}`]),
        '--pin-empty',
        as.empty.file,
        as.empty.dir,
        ...pins.flatMap(([k, n]) => ['--pin', k, `${ws}/${n}`]),
        '--',
        '/usr/bin/bwrap',
        ...(run.optionsFile ? ['--args', '3'] : options),
        '--',
        '/bin/sh',
        '-c',
        script,
      ],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe', run.optionsFile ? openSync(optionsFile, 'r') : 'ignore', 'ignore', 'pipe'],
      },
    );
  }

  for (const [name, extra] of [
    ["in the launcher's own namespace", []],
    ['handed to bwrap (fallback)', ['--pin-via-bwrap']],
  ] as const) {
    it(`pins read-only, unremovable and unrenamable, then sweeps its placeholders: ${name}`, () => {
      const ws = freshDir('trust-pins-ws-');
      try {
        mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
        const r = runPinned(
          ws,
          [
            `echo evil > ${ws}/.bashrc`,
            `touch ${ws}/.husky/x`,
            `touch ${ws}/.git/hooks/pre-commit`,
            `rm -f ${ws}/.bashrc`,
            `mv ${ws}/.git ${ws}/moved`,
            `rmdir ${ws}/.husky`,
            `echo ok > ${ws}/fine`,
            `grep -cE "(bashrc|husky|\\.git) ro," /proc/self/mountinfo`,
          ].join('; '),
          { extra },
        );
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout.trim()).toBe('3');
        expect(r.stderr).toMatch(/Read-only file system/);
        expect(r.stderr).toMatch(/Device or resource busy/);
        expect(readFileSync(join(ws, 'fine'), 'utf8')).toBe('ok\n');
        expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
        expect(existsSync(join(ws, 'moved'))).toBe(false);
        // The placeholders are gone again; the real .git stays.
        expect(existsSync(join(ws, '.bashrc'))).toBe(false);
        expect(existsSync(join(ws, '.husky'))).toBe(false);
        expect(existsSync(join(ws, '.git', 'hooks'))).toBe(true);
      } finally {
        rmSync(ws, { recursive: true, force: true });
      }
    });
  }

  it('pins for a host user without root too (its own user namespace, then an unprivileged bwrap)', () => {
    // As root, the launcher is started as uid 65534; as any other user it already runs unprivileged.
    const root = process.getuid?.() === 0;
    const uid = root ? 65534 : process.getuid?.();
    const ws = freshDir('trust-pins-user-');
    const kit = freshDir('trust-pins-kit-');
    try {
      copyFileSync(launcher.path, join(kit, 'launcher'));
      copyFileSync(empty.file, join(kit, 'empty'));
      mkdirSync(join(kit, 'empty.d'));
      chmodSync(kit, 0o755);
      chmodSync(join(kit, 'launcher'), 0o755);
      chmodSync(join(kit, 'empty'), 0o444);
      mkdirSync(join(ws, '.git'));
      if (root) for (const p of [ws, join(ws, '.git')]) chownSync(p, 65534, 65534);
      const r = runPinned(ws, `id -u; echo evil > ${ws}/.bashrc; echo ok > ${ws}/fine`, {
        as: {
          prefix: root ? ['setpriv', '--reuid', '65534', '--regid', '65534', '--clear-groups', '--inh-caps=-all'] : [],
          launcher: join(kit, 'launcher'),
          empty: { file: join(kit, 'empty'), dir: join(kit, 'empty.d') },
        },
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe(String(uid));
      expect(r.stderr).toMatch(/Read-only file system/);
      expect(readFileSync(join(ws, 'fine'), 'utf8')).toBe('ok\n');
      expect(existsSync(join(ws, '.bashrc'))).toBe(false);
    } finally {
      rmSync(ws, { recursive: true, force: true });
      rmSync(kit, { recursive: true, force: true });
    }
  });

  for (const [name, extra] of [
    ["in the launcher's own namespace", []],
    ['handed to bwrap (fallback)', ['--pin-via-bwrap']],
  ] as const) {
    it(
      `a protected path planned as existing but gone by spawn (another ` +
        `sandbox swept it) is pinned as a placeholder: ${name}`,
      () => {
        const ws = freshDir('trust-pins-gone-');
        try {
          // F and D name paths that do not exist (any more): they must not fail the run, nor stay writable.
          const r = runPinned(ws, `echo evil > ${ws}/.npmrc; mkdir ${ws}/.git/hooks; echo done`, {
            extra,
            pins: [
              ['F', '.npmrc'],
              ['D', '.git'],
            ],
          });
          expect(r.status, r.stderr).toBe(0);
          expect(r.stdout).toContain('done');
          expect(r.stderr).toMatch(/Read-only file system/);
          expect(readFileSync(join(ws, '.npmrc'), 'utf8')).toBe('');
          expect(existsSync(join(ws, '.git', 'hooks'))).toBe(false);
        } finally {
          rmSync(ws, { recursive: true, force: true });
        }
      },
    );
  }

  for (const [how, optionsFile] of [
    ['bwrap started after the pins', false],
    ['bwrap starting while the pins are made', true],
  ] as const) {
    it(`refuses to pin a symlink (the bind would land on its target), and the command never runs: ${how}`, () => {
      const ws = freshDir('trust-pins-ws-');
      const outside = freshDir('trust-pins-out-');
      try {
        writeFileSync(join(outside, 'target'), 'original');
        symlinkSync(join(outside, 'target'), join(ws, '.bashrc'));
        mkdirSync(join(ws, '.git'));
        const r = runPinned(ws, `echo started; echo changed > ${ws}/.bashrc`, { optionsFile });
        expect(r.status).toBe(125);
        expect(r.stdout).not.toContain('started');
        expect(r.stderr).toMatch(/\.bashrc: Too many levels of symbolic links/);
        expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('original');
      } finally {
        rmSync(ws, { recursive: true, force: true });
        rmSync(outside, { recursive: true, force: true });
      }
    });
  }

  for (const [name, extra, optionsFile] of [
    ["in the launcher's own namespace, while bwrap starts", [], true],
    ["in the launcher's own namespace, before bwrap starts", [], false],
    ['handed to bwrap (fallback)', ['--pin-via-bwrap'], false],
  ] as const) {
    it(`--nested-git pins the .git of nested repositories within the walk's bounds, and only those: ${name}`, () => {
      const ws = freshDir('trust-pins-nested-');
      try {
        const repos = {
          pinned: ['vendor/lib', 'a/b/c', '.hidden-dir/x'],
          // too deep (and one level down through a symlink, which is not followed); in node_modules; skipped
          free: ['a/b/c/d', 'node_modules/pkg', 'skipped/repo'],
        };
        for (const r of [...repos.pinned, ...repos.free]) mkdirSync(join(ws, r, '.git'), { recursive: true });
        mkdirSync(join(ws, '.git')); // the root's own, pinned as a protected path
        symlinkSync(join(ws, 'a/b/c/d'), join(ws, 'link'));
        mkdirSync(join(ws, 'sub'));
        writeFileSync(join(ws, 'sub', '.git'), 'gitdir: ../.git/modules/sub\n'); // a gitfile
        const probes = [...repos.pinned, ...repos.free].map(
          (r) => `touch ${ws}/${r}/.git/probe 2>/dev/null && echo "${r} writable" || echo "${r} read-only"`,
        );
        const r = runPinned(
          ws,
          [...probes, `echo x >> ${ws}/sub/.git 2>/dev/null && echo "sub writable" || echo "sub read-only"`].join('; '),
          {
            extra: [...extra, '--nested-git', ws, '--nested-skip', join(ws, 'skipped')],
            optionsFile,
          },
        );
        expect(r.status, r.stderr).toBe(0);
        const lines = r.stdout.trim().split('\n').sort();
        expect(lines).toEqual(
          [...[...repos.pinned, 'sub'].map((x) => `${x} read-only`), ...repos.free.map((x) => `${x} writable`)].sort(),
        );
      } finally {
        rmSync(ws, { recursive: true, force: true });
      }
    });
  }

  it('with the options in a file, bwrap starts while the pins are made and sees every one of them', () => {
    const ws = freshDir('trust-pins-ws-');
    try {
      mkdirSync(join(ws, '.git'));
      const r = runPinned(
        ws,
        `echo x > ${ws}/.bashrc; mkdir ${ws}/.husky/h; mkdir ${ws}/.git/hooks; echo ok > ${ws}/fine; cat ${ws}/fine`,
        { optionsFile: true },
      );
      expect(r.stdout).toBe('ok\n');
      expect(r.stderr.match(/Read-only file system/g)).toHaveLength(3);
      expect(r.status).toBe(0);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
