// @trust/wasm-host filesystem: guest file read and write throughput (4 KiB and 1 MiB files)
// through trust's own wasi:filesystem (paths walked beneath pinned descriptors) against
// preview2-shim's descriptors (path strings) in the same run. Two levels:
// - guest: the componentize-js probe's `read`/`write` commands on raw jco glue, once with the
//   shim's sandboxed import object and once with only wasi:filesystem replaced by ours;
// - host calls: the same open/read-or-write/drop sequence on the two descriptor implementations
//   directly, without the guest engine, so the filesystem's own cost is visible.
// Each pair of operations runs back to back (ours, shim, then shim, ours, ...) and the ratio is of
// median operation times.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transpile } from '@bytecodealliance/jco';
import * as shim from '@bytecodealliance/preview2-shim';
import { _createPreopenDescriptor } from '@bytecodealliance/preview2-shim/filesystem';
import { WASIShim } from '@bytecodealliance/preview2-shim/instantiation';
import { createGuestFilesystem, pinGrantDirs } from '@trust/wasm-host';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, '..', '..', 'packages', 'wasm-host');
const SIZES = [
  ['4 KiB', 4096],
  ['1 MiB', 1024 * 1024],
];
const dispose = Symbol.dispose ?? Symbol.for('dispose');

function probeFixture() {
  execFileSync(process.execPath, [join(pkgDir, 'scripts', 'build-fixtures.mjs'), '--only', 'probe'], {
    stdio: 'ignore',
  });
  return new Uint8Array(readFileSync(join(pkgDir, '.fixtures', 'probe.wasm')));
}

function oursFs(dir) {
  const pinned = pinGrantDirs([{ mode: 'rw', path: dir }]);
  const fs = createGuestFilesystem(
    pinned.dirs.map((d) => ({ guestPath: d.path, mode: d.mode, fd: d.fd })),
    {
      InputStream: shim.io.streams.InputStream,
      OutputStream: shim.io.streams.OutputStream,
      IoError: shim.io.error.Error,
      ready: () => shim.clocks.monotonicClock.subscribeDuration(0n),
    },
  );
  return {
    fs,
    close: () => {
      fs.close();
      pinned.close();
    },
  };
}

/** The probe on raw jco glue: the shim's sandboxed import object, optionally with our filesystem. */
async function probeInstances(bytes, dir, workDir) {
  const out = await transpile(bytes, { name: 'probe', instantiation: 'async', noTypescript: true, quiet: true });
  writeFileSync(join(workDir, 'probe.mjs'), out.files['probe.js']);
  const glue = await import(pathToFileURL(join(workDir, 'probe.mjs')).href);
  const modules = new Map();
  for (const [name, b] of Object.entries(out.files))
    if (name.endsWith('.wasm')) modules.set(name, await WebAssembly.compile(b));
  const base = () =>
    new WASIShim({ sandbox: { preopens: { [dir]: dir }, env: {}, args: [], enableNetwork: false } }).getImportObject();
  const shimImports = base();
  const ours = oursFs(dir);
  const oursImports = {
    ...base(),
    'wasi:filesystem/types': ours.fs.types,
    'wasi:filesystem/preopens': ours.fs.preopens,
  };
  const shimRun = (await glue.instantiate((n) => modules.get(n), shimImports)).run;
  const oursRun = (await glue.instantiate((n) => modules.get(n), oursImports)).run;
  return { shim: shimRun, ours: oursRun, close: ours.close };
}

/**
 * Bytes/s of each function from the median time of one operation. The two run alternately, one
 * operation each (the order flipping every pair), so both see the same machine and disk load;
 * stops after `budgetMs` or `maxPairs`.
 */
async function paired(fns, bytesPerOp, { budgetMs = 3000, maxPairs = 2000 } = {}) {
  const names = Object.keys(fns);
  for (const k of names) for (let i = 0; i < 10; i++) await fns[k]();
  const times = Object.fromEntries(names.map((k) => [k, []]));
  const t0 = performance.now();
  for (let i = 0; i < maxPairs && performance.now() - t0 < budgetMs; i++) {
    for (const k of i % 2 ? [...names].reverse() : names) {
      const s = performance.now();
      await fns[k]();
      times[k].push(performance.now() - s);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return Object.fromEntries(names.map((k) => [k, bytesPerOp / (median(times[k]) / 1000)]));
}

/** Host-level: open, read everything in 64 KiB pieces (or write once), drop. */
function descriptorOps(preopen, size) {
  const payload = new Uint8Array(size).fill(0x61);
  return {
    read() {
      const d = preopen.openAt({ symlinkFollow: true }, 'r.bin', {}, { read: true });
      for (let off = 0n; ; ) {
        const [bytes, eof] = d.read(65536n, off);
        off += BigInt(bytes.length);
        if (eof || bytes.length === 0) break;
      }
      d[dispose]?.();
    },
    write() {
      const d = preopen.openAt({ symlinkFollow: true }, 'w.bin', { create: true, truncate: true }, { write: true });
      d.write(payload, 0n);
      d[dispose]?.();
    },
  };
}

const MB = 1024 * 1024;

export default async function run({ log }) {
  // tmpfs when there is one: on a disk, rewriting a file costs a flush that dwarfs (and, on a
  // shared machine, randomises) what the two implementations do differently
  const workDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'bench-wasm-fs-'));
  log(`files in ${dirname(workDir)}`);
  const rows = [];
  try {
    const dir = join(workDir, 'grant');
    mkdirSync(dir);
    const probe = await probeInstances(probeFixture(), dir, workDir);
    const direct = oursFs(dir);
    const oursPreopen = direct.fs.preopens.getDirectories()[0][0];
    const shimPreopen = _createPreopenDescriptor(dir);
    for (const [label, size] of SIZES) {
      writeFileSync(join(dir, 'r.bin'), 'a'.repeat(size));
      const text = 'a'.repeat(size);
      const path = join(dir, 'r.bin');
      const wpath = `${join(dir, 'w.bin')}\n${text}`;
      const check = probe.ours('read', path);
      if (check.length !== size) throw new Error(`probe read returned ${check.slice(0, 80)}`);
      const budget = { budgetMs: size >= MB ? 8000 : 3000 };
      const gRead = await paired(
        { ours: () => probe.ours('read', path), shim: () => probe.shim('read', path) },
        size,
        budget,
      );
      const gWrite = await paired(
        { ours: () => probe.ours('write', wpath), shim: () => probe.shim('write', wpath) },
        size,
        budget,
      );
      const o = descriptorOps(oursPreopen, size);
      const s = descriptorOps(shimPreopen, size);
      const hRead = await paired({ ours: o.read, shim: s.read }, size);
      const hWrite = await paired({ ours: o.write, shim: s.write }, size);
      log(
        `${label}: guest read ${(gRead.ours / MB).toFixed(1)} vs ${(gRead.shim / MB).toFixed(1)} MiB/s, write ` +
          `${(gWrite.ours / MB).toFixed(1)} vs ${(gWrite.shim / MB).toFixed(1)}; host read ` +
          `${(hRead.ours / MB).toFixed(1)} vs ${(hRead.shim / MB).toFixed(1)}, write ` +
          `${(hWrite.ours / MB).toFixed(1)} vs ${(hWrite.shim / MB).toFixed(1)}`,
      );
      const row = (measure, r) => ({
        measure,
        unit: 'MiB/s',
        ours: r.ours / MB,
        baseline: r.shim / MB,
        baselineName: 'preview2-shim descriptors',
        better: 'higher',
        target: { ratio: 0.7 },
      });
      rows.push(row(`guest file read, ${label} (probe guest)`, gRead));
      rows.push(row(`guest file write, ${label} (probe guest)`, gWrite));
      rows.push(row(`descriptor open+read+drop, ${label} (host calls)`, hRead));
      rows.push(row(`descriptor open+write+drop, ${label} (host calls)`, hWrite));
    }
    probe.close();
    direct.close();
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  return rows;
}
