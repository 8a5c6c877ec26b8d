// Agent code off the main thread: sys_code's warm cost now that each run goes to a worker thread,
// against the same execution (prelude, bridge, limits: dist/quickjs-run.js, not public API) run on
// the main thread as the in-thread sandbox did, and against a raw QuickJS eval; the worker hop
// alone (a postMessage round trip to an echo worker); and the main thread's event-loop delay while
// 4 agents spin in sys_code (against the same loop idle).
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createCodeSandbox } from '@trust/agent-runtime/code';
import { percentile, sampleInterleaved } from '../lib/table.mjs';

const ms = (ns) => ns / 1e6;
const SPIN_MS = 3000;

export default async function run({ log }) {
  const rows = [];
  const bridge = async () => null;

  // The runtime's own QuickJS (resolved from the package; it is not a bench dependency).
  const quickjs = createRequire(import.meta.resolve('@trust/agent-runtime'))('quickjs-emscripten');
  const mod = await quickjs.newQuickJSWASMModuleFromVariant(quickjs.RELEASE_SYNC);
  const rawEval = () => {
    const rt = mod.newRuntime();
    rt.setMemoryLimit(64 * 1024 * 1024);
    const vm = rt.newContext();
    const r = vm.evalCode('1 + 1');
    if (r.error) r.error.dispose();
    else r.value.dispose();
    vm.dispose();
    rt.dispose();
  };

  // The in-thread path: one execution on this thread, exactly as the worker runs it.
  const inThread = await import(new URL('./quickjs-run.js', import.meta.resolve('@trust/agent-runtime')).href);
  const engine = await inThread.loadEngine(64 * 1024 * 1024);
  const limits = { maxCalls: 10_000, maxBytes: 8 << 20, maxLogBytes: 65_536, stackBytes: 131_072, maxInflight: 16 };
  const oldPath = () =>
    inThread.runGuest(
      engine,
      {
        code: 'return 1 + 1',
        deadline: Date.now() + 10_000,
        timeoutMs: 10_000,
        memoryBytes: 64 << 20,
        stopRequested: () => false,
        call: async () => 'null',
      },
      limits,
    );

  const echo = new Worker(
    'const p = require("node:worker_threads").parentPort; p.on("message", (m) => p.postMessage(m));',
    { eval: true },
  );
  const hop = () =>
    new Promise((resolve) => {
      echo.once('message', resolve);
      echo.postMessage({ t: 'run', id: 1, code: 'return 1 + 1' });
    });

  const sandbox = createCodeSandbox({ workers: 1 });
  for (let i = 0; i < 50; i++) {
    await sandbox.run({ code: 'return 1 + 1', bridge });
    await oldPath();
    rawEval();
    await hop();
  }
  const s = await sampleInterleaved(
    {
      ours: () => sandbox.run({ code: 'return 1 + 1', bridge }),
      old: oldPath,
      raw: rawEval,
      hop,
    },
    600,
  );
  rows.push({
    measure: 'sys_code trivial, warm, in a worker (p50)',
    unit: 'ms',
    ours: ms(percentile(s.ours, 50)),
    baseline: ms(percentile(s.old, 50)),
    baselineName: 'same execution on the main thread (in-thread path)',
    better: 'lower',
    target: { ratio: 1.5 },
  });
  rows.push({
    measure: 'sys_code trivial, warm, in a worker (p99)',
    unit: 'ms',
    ours: ms(percentile(s.ours, 99)),
    baseline: ms(percentile(s.old, 99)),
    baselineName: 'same execution on the main thread (in-thread path)',
    better: 'lower',
  });
  rows.push({
    measure: 'in-thread path vs raw QuickJS eval (p50)',
    unit: 'ms',
    ours: ms(percentile(s.old, 50)),
    baseline: ms(percentile(s.raw, 50)),
    baselineName: 'raw QuickJS runtime+context+eval',
    better: 'lower',
  });
  rows.push({
    measure: 'worker hop alone: postMessage round trip (p50)',
    unit: 'ms',
    ours: ms(percentile(s.hop, 50)),
    better: 'lower',
  });
  const bridged = await sampleInterleaved(
    { ours: () => sandbox.run({ code: 'for (let i = 0; i < 10; i++) await adf.x({ i }); return 1', bridge }) },
    200,
  );
  rows.push({
    measure: 'sys_code with 10 bridge calls (p50)',
    unit: 'ms',
    ours: ms(percentile(bridged.ours, 50)),
    baseline: ms(percentile(s.ours, 50)),
    baselineName: 'sys_code trivial in a worker',
    better: 'lower',
  });
  await echo.terminate();

  // Event-loop delay on the main thread: idle, then while 4 agents (4 sandboxes) spin.
  const delay = async (during) => {
    const h = monitorEventLoopDelay({ resolution: 1 });
    h.enable();
    await during();
    h.disable();
    return { p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
  };
  const idle = await delay(() => new Promise((r) => setTimeout(r, SPIN_MS)));
  const agents = Array.from({ length: 4 }, () => createCodeSandbox());
  for (const a of agents) await a.run({ code: 'return 1', bridge });
  const spinning = await delay(() =>
    Promise.all(agents.map((a) => a.run({ code: 'while (true) {}', bridge, timeoutMs: SPIN_MS }))),
  );
  await Promise.all(agents.map((a) => a.close()));
  rows.push({
    measure: 'event-loop delay p99 while 4 agents spin in sys_code',
    unit: 'ms',
    ours: spinning.p99,
    baseline: idle.p99,
    baselineName: 'same loop, idle',
    better: 'lower',
    target: { max: 20 },
  });
  log?.(
    `event-loop delay max: spinning ${spinning.max.toFixed(1)} ms, idle ${idle.max.toFixed(1)} ms ` +
      `(the in-thread sandbox blocked the loop for the whole ${SPIN_MS} ms timeout per run)`,
  );

  await sandbox.close();
  return rows;
}
