/**
 * The entry of a plugin's worker thread: instantiates the component with its import plan and
 * answers call messages. The worker holds nothing of the host: no policy, no keys, no env beyond
 * the plan's granted values.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { instantiateRuntime, type PluginRuntime } from './plugin-runtime.js';
import type { ImportPlan } from './import-plan.js';
import { createSyncCaller } from './sync-bridge.js';

interface Init {
  glueUrl: string;
  modules: Record<string, WebAssembly.Module>;
  plan: ImportPlan;
  bridgePort?: MessagePort;
  bridgeFlag?: SharedArrayBuffer;
  maxMemoryBytes?: number;
}

const port = parentPort!;
const init = workerData as Init;
let runtime: PluginRuntime | undefined;
try {
  runtime = await instantiateRuntime({
    glueUrl: init.glueUrl,
    modules: new Map(Object.entries(init.modules)),
    plan: init.plan,
    onOutput: (stream, data) => port.postMessage({ type: 'stdio', stream, data }),
    ...(init.bridgePort && init.bridgeFlag ? { bridge: createSyncCaller(init.bridgePort, init.bridgeFlag) } : {}),
    ...(init.maxMemoryBytes !== undefined ? { maxMemoryBytes: init.maxMemoryBytes } : {}),
  });
  port.postMessage({ type: 'ready' });
} catch (e) {
  port.postMessage({ type: 'init-error', message: String((e as Error)?.message ?? e) });
}
port.on('message', (m: { type: 'call'; id: number; name: string; args: unknown[] }) => {
  if (m.type !== 'call' || !runtime) return;
  const outcome = runtime.call(m.name, m.args);
  try {
    port.postMessage({ type: 'result', id: m.id, outcome });
  } catch {
    port.postMessage({ type: 'result', id: m.id, outcome: { ok: false, fatal: false, failure: { kind: 'trap', message: 'the result cannot be copied to the host' } } });
  }
});
