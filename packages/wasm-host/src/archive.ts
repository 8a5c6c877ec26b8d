import { mkdir, rename, rm, writeFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Header, Parser, Pax } from 'tar';
import { wasmError } from './errors.js';
import { normalizePackagePath } from './manifest.js';
import {
  createPackageFiles,
  DEFAULT_PACKAGE_LIMITS,
  readPackageDir,
  type PackageFiles,
  type PackageLimits,
} from './package-files.js';

/** The archive extension: a gzip-compressed ustar/pax tar of the package files at its root. */
export const PACKAGE_EXTENSION = '.tpkg';

const BLOCK = 512;

/** How to get a good archive again: rebuild it from the package directory. */
const REBUILD_HINT =
  'rebuild it from the package directory with `trust package build <dir>` (or packPackage()), ' +
  'or download it again if it was cut short';

function tarEntry(path: string, data: Uint8Array): Buffer[] {
  const header = new Header({
    path,
    mode: 0o644,
    size: data.length,
    mtime: new Date(0),
    type: 'File',
    uid: 0,
    gid: 0,
    uname: '',
    gname: '',
  });
  const block = Buffer.alloc(BLOCK);
  const needPax = header.encode(block, 0);
  const out: Buffer[] = [];
  if (needPax) out.push(new Pax({ path, mtime: new Date(0) }).encode());
  out.push(block, Buffer.from(data));
  const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
  if (pad) out.push(Buffer.alloc(pad));
  return out;
}

/**
 * Packs a package (a directory or in-memory files) into `.tpkg` bytes: files sorted by path,
 * fixed mtime, uid and mode, so the same files always give the same archive.
 *
 * @example
 * writeFileSync('greeter-1.0.0.tpkg', await packPackage('./greeter'));
 */
export async function packPackage(pkg: string | PackageFiles): Promise<Uint8Array> {
  const files = typeof pkg === 'string' ? await readPackageDir(pkg) : pkg;
  const parts: Buffer[] = [];
  for (const path of [...files.files.keys()].sort()) parts.push(...tarEntry(path, files.files.get(path)!));
  parts.push(Buffer.alloc(BLOCK * 2));
  return new Uint8Array(gzipSync(Buffer.concat(parts), { level: 9 }));
}

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/**
 * Reads a `.tpkg` archive into memory without touching the disk. Refuses absolute paths, `..`,
 * links, devices, FIFOs and duplicate entries (`WASM_PACKAGE_UNSAFE_PATH`), and caps the entry
 * count, the total size and the compression ratio (`WASM_PACKAGE_TOO_LARGE`). The size caps are
 * enforced while decompressing, so a gzip bomb stops at the cap.
 */
export async function readPackageArchive(
  archive: Uint8Array,
  limits: PackageLimits = {},
  source = '<archive>',
): Promise<PackageFiles> {
  const max = { ...DEFAULT_PACKAGE_LIMITS, ...limits };
  // tar overhead: a header per entry plus padding; allow it on top of the content cap.
  const tarCap = Math.min(
    max.maxTotalBytes + (max.maxEntries + 2) * BLOCK * 2,
    max.maxRatio > 0 ? Math.max(archive.length * max.maxRatio, BLOCK * 4) : Infinity,
  );
  let tarBytes: Buffer;
  try {
    tarBytes = gunzipSync(archive, { maxOutputLength: Number.isFinite(tarCap) ? tarCap : undefined });
  } catch (cause) {
    if (cause instanceof RangeError || (cause as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw wasmError(
        'WASM_PACKAGE_TOO_LARGE',
        `archive ${source} decompresses beyond the limit ` +
          `(${tarCap} bytes; ratio cap ${max.maxRatio}x, size cap ${max.maxTotalBytes} bytes)`,
        {
          cause,
          hint: 'this looks like a compression bomb; raise limits only for archives you trust',
        },
      );
    }
    const truncated = (cause as NodeJS.ErrnoException).code === 'Z_BUF_ERROR';
    throw wasmError(
      'WASM_PACKAGE_MALFORMED',
      truncated
        ? `archive ${source} is truncated (the gzip stream ends early)`
        : `archive ${source} is not a .tpkg archive (not gzip-compressed)`,
      {
        cause,
        hint: REBUILD_HINT,
      },
    );
  }
  const files: [string, Uint8Array][] = [];
  const seen = new Set<string>();
  let total = 0;
  let failure: Error | undefined;
  const fail = (e: Error) => {
    failure ??= e;
  };
  await new Promise<void>((resolve) => {
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry) => {
        if (failure) return void entry.resume();
        const raw = entry.path;
        const isDir = entry.type === 'Directory';
        const path = normalizePackagePath(isDir ? raw.replace(/\/+$/, '') : raw);
        if (!isDir && !FILE_TYPES.has(entry.type)) {
          fail(
            wasmError(
              'WASM_PACKAGE_UNSAFE_PATH',
              `archive entry ${JSON.stringify(raw)} is a ${entry.type}; only regular files and directories are allowed`,
              { hint: 'pack the package with packPackage()' },
            ),
          );
        } else if (path === undefined) {
          fail(
            wasmError(
              'WASM_PACKAGE_UNSAFE_PATH',
              `archive entry ${JSON.stringify(raw)} is outside the package (absolute path or "..")`,
              { hint: 'pack the package with packPackage()' },
            ),
          );
        } else if (!isDir && seen.has(path)) {
          fail(
            wasmError('WASM_PACKAGE_UNSAFE_PATH', `archive entry ${JSON.stringify(path)} appears twice`, {
              hint: 'pack the package with packPackage()',
            }),
          );
        } else if (!isDir && files.length + 1 > max.maxEntries) {
          fail(
            wasmError('WASM_PACKAGE_TOO_LARGE', `archive ${source} has more than ${max.maxEntries} files`, {
              hint: 'raise limits.maxEntries only for archives you trust',
            }),
          );
        } else if (!isDir && total + (entry.size ?? 0) > max.maxTotalBytes) {
          fail(
            wasmError('WASM_PACKAGE_TOO_LARGE', `archive ${source} holds more than ${max.maxTotalBytes} bytes`, {
              hint: 'raise limits.maxTotalBytes only for archives you trust',
            }),
          );
        }
        // after a failure nothing is kept, so the running total no longer matters
        if (failure || isDir) return void entry.resume();
        total += entry.size ?? 0;
        seen.add(path!);
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => files.push([path!, new Uint8Array(Buffer.concat(chunks))]));
      },
    });
    parser.on('error', (e: Error) =>
      fail(
        wasmError('WASM_PACKAGE_MALFORMED', `archive ${source} is not a valid tar inside its gzip: ${e.message}`, {
          cause: e,
          hint: REBUILD_HINT,
        }),
      ),
    );
    parser.on('warn', (_code: string, message: string) =>
      fail(
        wasmError('WASM_PACKAGE_MALFORMED', `archive ${source} is not a valid tar inside its gzip: ${message}`, {
          hint: REBUILD_HINT,
        }),
      ),
    );
    parser.on('end', () => resolve());
    parser.on('close', () => resolve());
    parser.end(tarBytes);
  });
  if (failure) throw failure;
  return createPackageFiles(files, source);
}

/**
 * Unpacks a `.tpkg` archive into `dest` (which must not exist yet). Everything is checked in
 * memory first (see `readPackageArchive`), then written to a staging directory beside `dest`
 * and renamed into place, so a failure leaves nothing behind.
 *
 * @example
 * const pkg = await unpackPackage(readFileSync('greeter-1.0.0.tpkg'), './plugins/greeter');
 */
export async function unpackPackage(
  archive: Uint8Array,
  dest: string,
  limits: PackageLimits = {},
): Promise<PackageFiles> {
  const pkg = await readPackageArchive(archive, limits, dest);
  const exists = await stat(dest).then(
    () => true,
    () => false,
  );
  if (exists)
    throw wasmError('WASM_PACKAGE_UNSAFE_PATH', `destination ${dest} already exists`, {
      hint: 'remove it first or choose a new directory',
    });
  const staging = join(dirname(dest), `.tpkg-staging-${randomBytes(6).toString('hex')}`);
  try {
    for (const [path, bytes] of pkg.files) {
      const target = join(staging, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes, { mode: 0o644, flag: 'wx' });
    }
    await mkdir(staging, { recursive: true });
    await rename(staging, dest);
  } catch (e) {
    await rm(staging, { recursive: true, force: true });
    throw e;
  }
  return createPackageFiles(pkg.files, dest);
}
