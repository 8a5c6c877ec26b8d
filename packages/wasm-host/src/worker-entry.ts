/**
 * The entry of a plugin's worker thread: instantiates the component with its import plan and
 * answers call messages. The worker holds nothing of the host: no policy, no keys, no env beyond
 * the plan's granted values.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { instantiateRuntime, type PluginRuntime } from './plugin-runtime.js';
import type { ImportPlan } from './import-plan.js';
import { createSyncCaller } from './sync-bridge.js';
import { isPlainScalar, openPluginChannel, serveCalls, type PluginChannelBuffers } from './call-channel.js';
import type { WorkerOutcome } from './worker-runtime.js';

interface Init {
  glueUrl: string;
  modules: Record<string, WebAssembly.Module>;
  plan: ImportPlan;
  bridgePort?: MessagePort;
  bridgeFlag?: SharedArrayBuffer;
  maxMemoryBytes?: number;
  maxHttpRequestBytes?: number;
  /** Guest output kept per call (the host keeps the last `maxOutputBytes` overall). */
  maxOutputBytes: number;
  /** The call channel (see call-channel.ts): its shared buffers and bounds, and this side's overflow port. */
  call: PluginChannelBuffers;
  callPort: MessagePort;
}

const port = parentPort!;
const init = workerData as Init;
let runtime: PluginRuntime | undefined;
let inCall = false;
let callOutput: ['stdout' | 'stderr', Uint8Array][] = [];
let callOutputBytes = 0;
try {
  runtime = await instantiateRuntime({
    glueUrl: init.glueUrl,
    modules: new Map(Object.entries(init.modules)),
    plan: init.plan,
    // output during a call travels with its result, so it is visible when the call resolves
    onOutput: (stream, data) => {
      if (!inCall) return port.postMessage({ type: 'stdio', stream, data });
      // bounded: a guest printing in a loop cannot grow the worker without limit
      if (callOutputBytes + data.length > init.maxOutputBytes) return;
      callOutputBytes += data.length;
      callOutput.push([stream, data]);
    },
    ...(init.bridgePort && init.bridgeFlag ? { bridge: createSyncCaller(init.bridgePort, init.bridgeFlag) } : {}),
    ...(init.maxMemoryBytes !== undefined ? { maxMemoryBytes: init.maxMemoryBytes } : {}),
    ...(init.maxHttpRequestBytes !== undefined ? { maxHttpRequestBytes: init.maxHttpRequestBytes } : {}),
  });
  port.postMessage({ type: 'ready' });
} catch (e) {
  port.postMessage({ type: 'init-error', message: String((e as Error)?.message ?? e) });
}
// Serve calls: requests arrive in shared memory and answers go back the same way (see
// call-channel.ts); an answer too large for the buffer goes over the channel's port.
if (runtime) {
  const rt = runtime;
  serveCalls(
    openPluginChannel(init.call, 'worker', init.callPort),
    (req: { name: string; args: unknown[] }) => {
      inCall = true;
      const outcome = rt.call(req.name, req.args);
      inCall = false;
      const output = callOutput;
      callOutput = [];
      callOutputBytes = 0;
      return { ...outcome, output } as WorkerOutcome;
    },
    (reply) => reply.ok && reply.output.length === 0 && (reply.value === undefined || isPlainScalar(reply.value)),
    (): WorkerOutcome => ({
      ok: false,
      fatal: false,
      failure: { kind: 'trap', message: 'the result cannot be copied to the host' },
      output: [],
    }),
  );
}
