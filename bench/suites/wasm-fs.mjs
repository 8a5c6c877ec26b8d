// @trust/wasm-host filesystem: guest file read and write throughput (4 KiB and 1 MiB files)
// through trust's own wasi:filesystem (paths walked beneath pinned descriptors) against
// preview2-shim's descriptors (path strings) in the same run. Two levels:
// - guest: the componentize-js probe's `read`/`write` commands on raw jco glue, once with the
//   shim's sandboxed import object and once with only wasi:filesystem replaced by ours;
// - host calls: the same open/read-or-write/drop sequence on the two descriptor implementations
//   directly, without the guest engine, so the filesystem's own cost is visible.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const SIZES = [['4 KiB', 4096], ['1 MiB', 1024 * 1024]];
const dispose = Symbol.dispose ?? Symbol.for('dispose');

function probeFixture() {
  execFileSync(process.execPath, [join(pkgDir, 'scripts', 'build-fixtures.mjs'), '--only', 'probe'], { stdio: 'ignore' });
  return new Uint8Array(readFileSync(join(pkgDir, '.fixtures', 'probe.wasm')));
}

function oursFs(dir) {
  const pinned = pinGrantDirs([{ mode: 'rw', path: dir }]);
  const fs = createGuestFilesystem(pinned.dirs.map((d) => ({ guestPath: d.path, mode: d.mode, fd: d.fd })), {
    InputStream: shim.io.streams.InputStream,
    OutputStream: shim.io.streams.OutputStream,
    IoError: shim.io.error.Error,
    ready: () => shim.clocks.monotonicClock.subscribeDuration(0n),
  });
  return { fs, close: () => (fs.close(), pinned.close()) };
}

/** The probe on raw jco glue: the shim's sandboxed import object, optionally with our filesystem. */
async function probeInstances(bytes, dir, workDir) {
  const out = await transpile(bytes, { name: 'probe', instantiation: 'async', noTypescript: true, quiet: true });
  writeFileSync(join(workDir, 'probe.mjs'), out.files['probe.js']);
  const glue = await import(pathToFileURL(join(workDir, 'probe.mjs')).href);
  const modules = new Map();
  for (const [name, b] of Object.entries(out.files)) if (name.endsWith('.wasm')) modules.set(name, await WebAssembly.compile(b));
  const base = () => new WASIShim({ sandbox: { preopens: { [dir]: dir }, env: {}, args: [], enableNetwork: false } }).getImportObject();
  const shimImports = base();
  const ours = oursFs(dir);
  const oursImports = { ...base(), 'wasi:filesystem/types': ours.fs.types, 'wasi:filesystem/preopens': ours.fs.preopens };
  const shimRun = (await glue.instantiate((n) => modules.get(n), shimImports)).run;
  const oursRun = (await glue.instantiate((n) => modules.get(n), oursImports)).run;
  return { shim: shimRun, ours: oursRun, close: ours.close };
}

/** Median bytes/s of each function over alternating rounds, so both see the same machine load. */
async function interleaved(fns, bytesPerOp, { rounds = 7, ms = 250 } = {}) {
  for (const fn of Object.values(fns)) for (let i = 0; i < 20; i++) await fn();
  const samples = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    const order = Object.keys(fns);
    if (r % 2) order.reverse();
    for (const k of order) {
      let n = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < ms) {
        await fns[k]();
        n++;
      }
      samples[k].push((n * bytesPerOp) / ((performance.now() - t0) / 1000));
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
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
  const workDir = mkdtempSync(join(tmpdir(), 'bench-wasm-fs-'));
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
      const gRead = await interleaved({ ours: () => probe.ours('read', path), shim: () => probe.shim('read', path) }, size);
      const gWrite = await interleaved({ ours: () => probe.ours('write', wpath), shim: () => probe.shim('write', wpath) }, size);
      const o = descriptorOps(oursPreopen, size);
      const s = descriptorOps(shimPreopen, size);
      const hRead = await interleaved({ ours: o.read, shim: s.read }, size);
      const hWrite = await interleaved({ ours: o.write, shim: s.write }, size);
      log(`${label}: guest read ${(gRead.ours / MB).toFixed(1)} vs ${(gRead.shim / MB).toFixed(1)} MiB/s, write ${(gWrite.ours / MB).toFixed(1)} vs ${(gWrite.shim / MB).toFixed(1)}; host read ${(hRead.ours / MB).toFixed(1)} vs ${(hRead.shim / MB).toFixed(1)}, write ${(hWrite.ours / MB).toFixed(1)} vs ${(hWrite.shim / MB).toFixed(1)}`);
      const row = (measure, r) => ({ measure, unit: 'MiB/s', ours: r.ours / MB, baseline: r.shim / MB, baselineName: 'preview2-shim descriptors', better: 'higher', target: { ratio: 0.7 } });
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
