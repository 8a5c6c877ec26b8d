import { mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers.js';
import { packPackage, readPackageArchive, unpackPackage } from './archive.js';
import { createPackageFiles, readPackageDir } from './package-files.js';

const tmp = tempDir();
afterAll(tmp.cleanup);

/** A raw tar entry, to build hostile archives packPackage would never write. */
function entry(path: string, type: string, data = Buffer.alloc(0), linkpath?: string): Buffer {
  const block = Buffer.alloc(512);
  new Header({
    path,
    type: type as never,
    size: data.length,
    mode: 0o644,
    mtime: new Date(0),
    ...(linkpath ? { linkpath } : {}),
  }).encode(block, 0);
  const pad = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([block, data, pad]);
}
const tarOf = (...entries: Buffer[]) => new Uint8Array(gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)])));

function code(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'resolved',
    (e: { code: string }) => e.code,
  );
}

describe('.tpkg archives', () => {
  it('packs deterministically and unpacks to the same files', async () => {
    const src = join(tmp.dir, 'src');
    mkdirSync(join(src, 'sub'), { recursive: true });
    writeFileSync(join(src, 'package.toml'), 'x');
    writeFileSync(join(src, 'sub', 'a.bin'), Buffer.from([1, 2, 3]));
    const a = await packPackage(src);
    expect(Buffer.from(await packPackage(src)).equals(Buffer.from(a))).toBe(true);
    const dest = join(tmp.dir, 'out');
    const pkg = await unpackPackage(a, dest);
    expect([...pkg.files.keys()].sort()).toEqual(['package.toml', 'sub/a.bin']);
    expect([...readFileSync(join(dest, 'sub', 'a.bin'))]).toEqual([1, 2, 3]);
    await expect(code(unpackPackage(a, dest))).resolves.toBeTrustCode('WASM_PACKAGE_UNSAFE_PATH');
  });

  it.each([
    ['a ".." path', entry('../evil', 'File', Buffer.from('x'))],
    ['an absolute path', entry('/etc/evil', 'File', Buffer.from('x'))],
    ['a symlink', entry('link', 'SymbolicLink', Buffer.alloc(0), '/etc/passwd')],
    ['a hard link', entry('hard', 'Link', Buffer.alloc(0), 'package.toml')],
    ['a character device', entry('dev', 'CharacterDevice')],
    ['a FIFO', entry('fifo', 'FIFO')],
  ])('refuses %s and leaves nothing behind', async (_name, bad) => {
    const dest = join(tmp.dir, `bad-${Math.random().toString(16).slice(2)}`);
    await expect(
      code(unpackPackage(tarOf(entry('package.toml', 'File', Buffer.from('x')), bad), dest)),
    ).resolves.toBeTrustCode('WASM_PACKAGE_UNSAFE_PATH');
    expect(existsSync(dest)).toBe(false);
    expect(readdirSync(tmp.dir).some((n) => n.startsWith('.tpkg-staging'))).toBe(false);
  });

  it('caps the compression ratio, the total size and the entry count', async () => {
    const bomb = tarOf(entry('zeros', 'File', Buffer.alloc(4 * 1024 * 1024)));
    await expect(code(readPackageArchive(bomb))).resolves.toBeTrustCode('WASM_PACKAGE_TOO_LARGE');
    await expect(code(readPackageArchive(bomb, { maxRatio: 0, maxTotalBytes: 1024 }))).resolves.toBeTrustCode(
      'WASM_PACKAGE_TOO_LARGE',
    );
    const many = tarOf(...Array.from({ length: 5 }, (_, i) => entry(`f${i}`, 'File', Buffer.from('x'))));
    await expect(code(readPackageArchive(many, { maxEntries: 4 }))).resolves.toBeTrustCode('WASM_PACKAGE_TOO_LARGE');
    await expect(readPackageArchive(many, { maxEntries: 5 })).resolves.toMatchObject({ kind: 'package-files' });
  });

  it('refuses symlinks when reading a package directory', async () => {
    const dir = join(tmp.dir, 'withlink');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.toml'), 'x');
    symlinkSync('/etc/passwd', join(dir, 'passwd'));
    await expect(code(readPackageDir(dir))).resolves.toBeTrustCode('WASM_PACKAGE_UNSAFE_PATH');
  });

  it('reports a file that is not gzip, or a cut-short archive, as WASM_PACKAGE_MALFORMED (not unsafe)', async () => {
    const good = await packPackage(createPackageFiles([['package.toml', new TextEncoder().encode('x')]]));
    const cases: [string, Uint8Array, RegExp][] = [
      ['not gzip', new TextEncoder().encode('hello, this is text'), /not a \.tpkg archive/],
      ['truncated gzip', good.subarray(0, Math.floor(good.length / 2)), /truncated/],
      ['gzip of garbage', new Uint8Array(gzipSync(Buffer.alloc(1024, 7))), /not a valid tar/],
    ];
    for (const [, bytes, message] of cases) {
      const error = await readPackageArchive(bytes, {}, 'x.tpkg').then(
        () => undefined,
        (e: { code: string; message: string; hint: string }) => e,
      );
      expect(error?.code).toBeTrustCode('WASM_PACKAGE_MALFORMED');
      expect(error?.message).toMatch(message);
      expect(error?.hint).toContain('trust package build');
      expect(error?.hint).not.toContain('package pack');
    }
  });
});
