import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { codeOf, drop, guestFs, type D } from '../../test/guest-fs.js';
import { tempDir } from '../../test/helpers.js';

const tmp = tempDir('fs-desc-');
afterAll(tmp.cleanup);
const rw = join(tmp.dir, 'rw');
const ro = join(tmp.dir, 'ro');
const secret = join(tmp.dir, 'secret.txt');
mkdirSync(rw);
mkdirSync(ro);
writeFileSync(secret, 'outside');
writeFileSync(join(ro, 'g.txt'), 'ro-file');
mkdirSync(join(ro, 'sub'));
const fs = guestFs([
  { mode: 'rw', path: rw },
  { mode: 'ro', path: ro },
]);
afterAll(fs.dispose);
const rwDir = fs.dir(rw);
const roDir = fs.dir(ro);
const text = (d: D) => new TextDecoder().decode(d.read!(1024n, 0n)[0]);
const open = (d: D, path: string, flags: object = { read: true }, openFlags: object = {}, follow = true) =>
  d.openAt!({ symlinkFollow: follow }, path, openFlags, flags) as D;

beforeEach(() => {
  writeFileSync(join(rw, 'f.txt'), 'rw-file');
});

describe('fs:ro is enforced on every mutating call', () => {
  it.each([
    ['createDirectoryAt', ['d']],
    ['removeDirectoryAt', ['sub']],
    ['unlinkFileAt', ['g.txt']],
    ['symlinkAt', ['g.txt', 'l']],
    ['setTimesAt', [{}, 'g.txt', { tag: 'now' }, { tag: 'now' }]],
    ['renameAt', ['g.txt', 'roDir', 'h.txt']],
    ['renameAt', ['g.txt', 'rwDir', 'stolen.txt']],
    ['linkAt', [{}, 'g.txt', 'roDir', 'h.txt']],
    ['linkAt', [{}, 'g.txt', 'rwDir', 'hl.txt']],
  ])('%s %j', (method, args) => {
    const real = args.map((a) => (a === 'roDir' ? roDir : a === 'rwDir' ? rwDir : a));
    const call = roDir[method] as (...a: unknown[]) => unknown;
    expect(codeOf(() => call.apply(roDir, real))).toBe('read-only');
  });

  it('rename and link from a rw tree into a ro one are refused (the target is checked too)', () => {
    expect(codeOf(() => rwDir.renameAt!('f.txt', roDir, 'moved.txt'))).toBe('read-only');
    expect(codeOf(() => rwDir.linkAt!({}, 'f.txt', roDir, 'linked.txt'))).toBe('read-only');
    expect(existsSync(join(ro, 'moved.txt')) || existsSync(join(ro, 'linked.txt'))).toBe(false);
  });

  it('opening for write, create, truncate or mutate-directory is refused, and children stay ro', () => {
    expect(codeOf(() => open(roDir, 'g.txt', { write: true }))).toBe('read-only');
    expect(codeOf(() => open(roDir, 'new.txt', { read: true }, { create: true }))).toBe('read-only');
    expect(codeOf(() => open(roDir, 'g.txt', { read: true }, { truncate: true }))).toBe('read-only');
    expect(codeOf(() => open(roDir, 'sub', { read: true, mutateDirectory: true }, { directory: true }))).toBe(
      'read-only',
    );
    const child = open(roDir, 'g.txt');
    for (const call of [
      () => child.write!(new Uint8Array([1]), 0n),
      () => child.setSize!(0n),
      () => child.setTimes!({ tag: 'now' }, { tag: 'now' }),
      () => child.writeViaStream!(0n),
      () => child.appendViaStream!(),
    ]) {
      expect(codeOf(call)).toBe('read-only');
    }
    const sub = open(roDir, 'sub', { read: true }, { directory: true });
    expect(codeOf(() => sub.createDirectoryAt!('x'))).toBe('read-only');
    expect(readFileSync(join(ro, 'g.txt'), 'utf8')).toBe('ro-file');
    expect(existsSync(join(ro, 'new.txt')) || existsSync(join(ro, 'sub', 'x'))).toBe(false);
  });

  it('reads still work', () => {
    expect(text(open(roDir, 'g.txt'))).toBe('ro-file');
    expect(roDir.statAt!({}, 'g.txt').size).toBe(7n);
  });
});

describe('symlinks', () => {
  it.each([['f.txt'], ['./f.txt'], ['d/../f.txt'], ['d/x']])('a link to %j inside the grant is created', (target) => {
    mkdirSync(join(rw, 'd'), { recursive: true });
    rwDir.symlinkAt!(target, 'in-link');
    expect(readlinkSync(join(rw, 'in-link'))).toBe(target);
    rwDir.unlinkFileAt!('in-link');
  });

  it.each([
    ['out-link', '../secret.txt'],
    ['out-link', 'd/../../secret.txt'],
    ['out-link', '..'],
    ['d/out-link', '../../secret.txt'],
    ['d/out-link', '../x/../../secret.txt'],
    ['out-link', secret],
    ['out-link', '/etc/passwd'],
  ])('a link at %j to %j is refused', (path, target) => {
    mkdirSync(join(rw, 'd'), { recursive: true });
    expect(codeOf(() => rwDir.symlinkAt!(target, path))).toBe('not-permitted');
    expect(existsSync(join(rw, 'out-link')) || existsSync(join(rw, 'd', 'out-link'))).toBe(false);
  });

  it('a link one level down may climb one level', () => {
    mkdirSync(join(rw, 'd'), { recursive: true });
    rwDir.symlinkAt!('../f.txt', 'd/up');
    expect(text(open(rwDir, 'd/up'))).toBe('rw-file');
    rwDir.unlinkFileAt!('d/up');
  });

  it('host-planted links out of the grant are never followed', () => {
    symlinkSync(secret, join(rw, 'abs-out'));
    symlinkSync('../secret.txt', join(rw, 'rel-out'));
    symlinkSync(tmp.dir, join(rw, 'dir-out'));
    for (const p of ['abs-out', 'rel-out', 'dir-out/secret.txt'])
      expect(
        codeOf(() => open(rwDir, p)),
        p,
      ).toBe('not-permitted');
    for (const p of ['abs-out', 'rel-out'])
      expect(codeOf(() => open(rwDir, p, { read: true }, {}, false))).toBe('loop');
    expect(codeOf(() => rwDir.statAt!({ symlinkFollow: true }, 'rel-out'))).toBe('not-permitted');
    expect(rwDir.statAt!({}, 'rel-out').type).toBe('symbolic-link');
    expect(codeOf(() => open(rwDir, 'rel-out', { write: true }, { create: true, truncate: true }))).toBe(
      'not-permitted',
    );
    expect(codeOf(() => rwDir.linkAt!({ symlinkFollow: true }, 'rel-out', rwDir, 'hard'))).toBe('not-permitted');
    expect(codeOf(() => rwDir.setTimesAt!({ symlinkFollow: true }, 'rel-out', { tag: 'now' }, { tag: 'now' }))).toBe(
      'not-permitted',
    );
    expect(readFileSync(secret, 'utf8')).toBe('outside');
  });
});

describe('rename-then-symlink inside one rw grant', () => {
  it('cannot reach outside, by guest calls or by a host-planted link', () => {
    rwDir.createDirectoryAt!('sub');
    const held = open(rwDir, 'sub', { read: true }, { directory: true });
    rwDir.renameAt!('sub', rwDir, 'sub-away');
    expect(codeOf(() => rwDir.symlinkAt!('../../..', 'sub'))).toBe('not-permitted');
    symlinkSync(tmp.dir, join(rw, 'sub')); // what the guest could not do, the host did
    expect(codeOf(() => open(rwDir, 'sub/secret.txt'))).toBe('not-permitted');
    expect(codeOf(() => rwDir.statAt!({}, 'sub/secret.txt'))).toBe('not-permitted');
    // the descriptor opened before the rename still names the moved directory, not the link
    held.openAt!({}, 'made-through-held', { create: true }, { write: true });
    expect(existsSync(join(rw, 'sub-away', 'made-through-held'))).toBe(true);
    expect(existsSync(join(tmp.dir, 'made-through-held'))).toBe(false);
  });
});

describe('descriptor lifetime', () => {
  it('closes what the guest drops, keeps a file open while a stream of it lives', () => {
    const before = fs.gfs.openCount();
    const f = open(rwDir, 'f.txt');
    const input = f.readViaStream!(0n) as D;
    drop(f);
    expect(fs.gfs.openCount()).toBe(before + 1);
    expect(new TextDecoder().decode(input.blockingRead!(100n))).toBe('rw-file');
    drop(input);
    expect(fs.gfs.openCount()).toBe(before);
    expect(codeOf(() => input.read!(1n))).toEqual({ tag: 'closed' });
  });

  it('writes through streams and appends', () => {
    const f = open(rwDir, 'f.txt', { read: true, write: true }, { truncate: true });
    (f.writeViaStream!(0n) as D).blockingWriteAndFlush!(new TextEncoder().encode('abc'));
    (f.appendViaStream!() as D).blockingWriteAndFlush!(new TextEncoder().encode('def'));
    expect(readFileSync(join(rw, 'f.txt'), 'utf8')).toBe('abcdef');
    expect(text(f)).toBe('abcdef');
  });

  it('lists a preopen and a child directory', () => {
    const names = (d: D) => {
      const s = d.readDirectory!() as D;
      const out: string[] = [];
      for (let e = s.readDirectoryEntry!(); e; e = s.readDirectoryEntry!()) out.push(e.name);
      return out.sort();
    };
    expect(names(roDir)).toEqual(['g.txt', 'sub']);
    expect(names(open(roDir, 'sub', { read: true }, { directory: true }))).toEqual([]);
  });
});

describe('pinned preopen', () => {
  it('stays on the directory opened at load when the host path is swapped for a symlink', () => {
    const dir = join(tmp.dir, 'pinned');
    mkdirSync(dir);
    writeFileSync(join(dir, 'mine.txt'), 'mine');
    const p = guestFs([{ mode: 'ro', path: dir }]);
    renameSync(dir, join(tmp.dir, 'pinned-moved'));
    symlinkSync(tmp.dir, dir);
    expect(lstatSync(dir).isSymbolicLink()).toBe(true);
    expect(text(open(p.dir(dir), 'mine.txt'))).toBe('mine');
    expect(codeOf(() => open(p.dir(dir), 'secret.txt'))).toBe('no-entry');
    p.dispose();
  });
});

describe('descriptor limit', () => {
  it('a guest holding 1024 descriptors gets insufficient-memory, and dropping one frees a slot', () => {
    const p = guestFs([{ mode: 'ro', path: ro }]);
    const held: D[] = [];
    let failure: unknown;
    for (let i = 0; i < 1100 && failure === undefined; i++) {
      try {
        held.push(open(p.dir(ro), 'g.txt'));
      } catch (e) {
        failure = e;
      }
    }
    expect(failure).toBe('insufficient-memory');
    expect(held).toHaveLength(1024);
    drop(held.pop());
    expect(text(open(p.dir(ro), 'g.txt'))).toBe('ro-file');
    p.dispose();
  });
});

describe('closeAll', () => {
  it('kills every holder: later use is bad-descriptor and a late drop closes nothing', () => {
    const p = guestFs([{ mode: 'ro', path: ro }]);
    const f = open(p.dir(ro), 'g.txt');
    const listing = p.dir(ro).readDirectory!() as D;
    p.gfs.close();
    expect(codeOf(() => f.read!(1n, 0n))).toBe('bad-descriptor');
    expect(codeOf(() => listing.readDirectoryEntry!())).toBe('bad-descriptor');
    expect(codeOf(() => p.dir(ro).readDirectory!())).toBe('bad-descriptor');
    expect(codeOf(() => open(p.dir(ro), 'g.txt'))).toBe('bad-descriptor');
    expect(() => drop(f)).not.toThrow();
    expect(p.gfs.openCount()).toBe(0);
    p.dispose();
  });
});
