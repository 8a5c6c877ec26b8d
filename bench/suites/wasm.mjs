// @trust/wasm-host: call rate and latency, instantiation and cached loads of the WAT fixture,
// against the same component run on raw jco glue in this process.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transpile } from '@bytecodealliance/jco';
import { createPluginHost } from '@trust/wasm-host';
import { percentile, sample } from '../lib/table.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, '..', '..', 'packages', 'wasm-host');

function tinyFixture() {
  const path = join(pkgDir, '.fixtures', 'tiny.wasm');
  if (!existsSync(path))
    execFileSync(process.execPath, [join(pkgDir, 'scripts', 'build-fixtures.mjs'), '--only', 'tiny'], {
      stdio: 'ignore',
    });
  return new Uint8Array(readFileSync(path));
}

/** The baseline: jco's own glue, unpatched, with a minimal deny-all import object. */
async function rawJco(bytes, dir) {
  const out = await transpile(bytes, { name: 'raw', instantiation: 'async', noTypescript: true, quiet: true });
  writeFileSync(join(dir, 'raw.mjs'), out.files['raw.js']);
  const glue = await import(pathToFileURL(join(dir, 'raw.mjs')).href);
  const modules = new Map();
  for (const [name, b] of Object.entries(out.files))
    if (name.endsWith('.wasm')) modules.set(name, await WebAssembly.compile(b));
  const imports = {
    'wasi:cli/environment': { getEnvironment: () => [], getArguments: () => [], initialCwd: () => undefined },
    'wasi:cli/exit': {
      exit() {
        throw new Error('exit');
      },
    },
  };
  const instantiate = () => glue.instantiate((n) => modules.get(n), imports);
  return { instantiate };
}

/** Calls per second of each function, measured in alternating rounds (medians), so JIT and GC state hit both alike. */
async function interleavedRates(fns, rounds = 11, n = 20_000) {
  for (const fn of Object.values(fns)) for (let i = 0; i < 2000; i++) await fn();
  const samples = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    const order = Object.keys(fns);
    if (r % 2 === 1) order.reverse();
    for (const k of order) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await fns[k]();
      samples[k].push(n / (Number(process.hrtime.bigint() - t0) / 1e9));
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
}

export default async function run({ log }) {
  const bytes = tinyFixture();
  const dir = mkdtempSync(join(tmpdir(), 'bench-wasm-'));
  const rows = [];
  try {
    const raw = await rawJco(bytes, dir);
    const rawExports = await raw.instantiate();

    const host = createPluginHost({ requireSignature: false, cacheDir: join(dir, 'cache') });
    const inThread = await host.load(bytes, { isolation: 'in-thread' });
    const { ours: oursRate, raw: rawRate } = await interleavedRates({
      ours: () => inThread.call('noop'),
      raw: () => rawExports.noop(),
    });
    log(`in-thread ${oursRate.toFixed(0)} calls/s, raw ${rawRate.toFixed(0)} calls/s`);
    rows.push({
      measure: 'noop call rate, in-thread (host.load().call)',
      unit: 'calls/s',
      ours: oursRate,
      baseline: rawRate,
      baselineName: 'raw jco glue',
      better: 'higher',
      target: { ratio: 0.8 },
    });

    // worker mode: the default (calls and answers through shared memory, the host waiting with
    // Atomics.waitAsync) and the same with a 0.2 ms synchronous wait first, against two platform
    // floors measured in this run: a bare worker echoing one message, and a bare shared-memory
    // ping-pong (Atomics.notify / Atomics.wait) with an idle worker thread
    const worker = await host.load(bytes);
    const syncHost = createPluginHost({
      requireSignature: false,
      cacheDir: join(dir, 'cache'),
      limits: { syncWaitMs: 0.2 },
    });
    const syncWorker = await syncHost.load(bytes);
    for (let i = 0; i < 500; i++) await worker.call('noop');
    for (let i = 0; i < 500; i++) await syncWorker.call('noop');
    const lat = [];
    const latSync = [];
    // interleaved rounds, so both see the same machine load
    for (let r = 0; r < 6; r++) {
      lat.push(...(await sample(() => worker.call('noop'), 500)));
      latSync.push(...(await sample(() => syncWorker.call('noop'), 500)));
    }
    await syncHost.close();
    const echo = new Worker(
      `const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => ` +
        `parentPort.postMessage(m));`,
      { eval: true },
    );
    const roundTrip = () =>
      new Promise((resolve) => {
        echo.once('message', resolve);
        echo.postMessage(0);
      });
    for (let i = 0; i < 500; i++) await roundTrip();
    const floor = await sample(roundTrip, 3000);
    await echo.terminate();
    const sab = new SharedArrayBuffer(8);
    const ctl = new Int32Array(sab);
    const pong = new Worker(
      `const { workerData } = require('node:worker_threads'); const c = new Int32Array(workerData);
      for (let seen = 0;;) { Atomics.wait(c, 0, seen, 50); seen = Atomics.load(c, 0); ` +
        'if (seen === 1) { Atomics.store(c, 0, seen = 2); Atomics.notify(c, 0); } }',
      { eval: true, workerData: sab },
    );
    pong.unref();
    const ping = async () => {
      Atomics.store(ctl, 0, 1);
      Atomics.notify(ctl, 0);
      while (Atomics.wait(ctl, 0, 1, 1) === 'timed-out');
    };
    for (let i = 0; i < 500; i++) await ping();
    const futex = await sample(ping, 3000);
    await pong.terminate();
    rows.push({
      measure: 'noop call latency p50, worker mode',
      unit: 'µs',
      ours: percentile(lat, 50) / 1000,
      baseline: percentile(floor, 50) / 1000,
      baselineName: 'bare worker message round trip',
      better: 'lower',
      target: { max: 25 },
    });
    rows.push({
      measure: 'noop call latency p50, worker mode vs shared-memory floor',
      unit: 'µs',
      ours: percentile(lat, 50) / 1000,
      baseline: percentile(futex, 50) / 1000,
      baselineName: 'bare Atomics ping-pong with a worker',
      better: 'lower',
    });
    rows.push({
      measure: 'noop call latency p50, worker mode with a 0.2 ms synchronous wait',
      unit: 'µs',
      ours: percentile(latSync, 50) / 1000,
      baseline: percentile(floor, 50) / 1000,
      baselineName: 'bare worker message round trip',
      better: 'lower',
    });
    rows.push({
      measure: 'noop call latency p99, worker mode',
      unit: 'µs',
      ours: percentile(lat, 99) / 1000,
      better: 'lower',
    });
    log(
      `worker p50 ${(percentile(lat, 50) / 1000).toFixed(1)} µs (0.2 ms sync wait ` +
        `${(percentile(latSync, 50) / 1000).toFixed(1)}), message floor ` +
        `${(percentile(floor, 50) / 1000).toFixed(1)}, atomics floor ` +
        `${(percentile(futex, 50) / 1000).toFixed(1)}`,
    );

    for (let i = 0; i < 5; i++) await (await host.load(bytes, { isolation: 'in-thread' })).dispose();
    const warm = await sample(async () => (await host.load(bytes, { isolation: 'in-thread' })).dispose(), 50);
    const rawWarm = await sample(() => raw.instantiate(), 50);
    rows.push({
      measure: 'warm load + instantiate of the WAT fixture (in-thread)',
      unit: 'ms',
      ours: percentile(warm, 50) / 1e6,
      baseline: percentile(rawWarm, 50) / 1e6,
      baselineName: 'raw jco instantiate',
      better: 'lower',
      target: { max: 2 },
    });

    const cold = await sample(async () => {
      const h = createPluginHost({ requireSignature: false });
      await (await h.load(bytes, { isolation: 'in-thread' })).dispose();
    }, 5);
    const cached = await sample(async () => {
      const h = createPluginHost({ requireSignature: false, cacheDir: join(dir, 'cache') });
      await (await h.load(bytes, { isolation: 'in-thread' })).dispose();
    }, 10);
    rows.push({
      measure: 'load in a fresh host, transpile cache on disk',
      unit: 'ms',
      ours: percentile(cached, 50) / 1e6,
      baseline: percentile(cold, 50) / 1e6,
      baselineName: 'fresh host, no cache (transpile)',
      better: 'lower',
    });
    await host.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
