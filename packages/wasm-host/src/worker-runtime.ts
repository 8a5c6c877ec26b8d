import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type TransferListItem } from 'node:worker_threads';
import type { TrustError } from '@trust/core';
import { CALL_STATE, createCallBuffers, openCallChannel, postRequest, readPayload } from './call-channel.js';
import { wasmError } from './errors.js';
import type { ImportPlan } from './import-plan.js';
import { createNetworkBroker, type BrokerOptions } from './net-broker.js';
import type { CallOutcome } from './plugin-runtime.js';
import { serveSyncCalls } from './sync-bridge.js';

/** A worker's answer: the outcome plus the guest output written during the call. */
export type WorkerOutcome = CallOutcome & { readonly output: readonly ['stdout' | 'stderr', Uint8Array][] };

export interface WorkerRuntimeOptions {
  readonly id: string;
  readonly glueUrl: string;
  readonly modules: ReadonlyMap<string, WebAssembly.Module>;
  readonly plan: ImportPlan;
  readonly callTimeoutMs: number;
  readonly maxMemoryBytes: number;
  readonly maxHeapMb: number;
  readonly maxOutputBytes: number;
  readonly maxCallBytes: number;
  readonly maxHttpRequestBytes: number;
  /**
   * How long the calling thread waits synchronously for a reply before it yields to its event
   * loop (ms). Plugins with a network bridge never wait: their guest calls back into this thread.
   */
  readonly syncWaitMs: number;
  /** The plugin's network broker; absent when the plan grants no network. */
  readonly broker?: BrokerOptions;
  readonly onOutput: (stream: 'stdout' | 'stderr', data: Uint8Array) => void;
  /** Called once when the worker is lost (deadline, crash, heap ceiling, exit). */
  readonly onDeath: (error: TrustError) => void;
}

export interface WorkerRuntime {
  /**
   * One call. Resolves (or returns at once, on the fast path) with the outcome; rejects with a
   * TrustError when the worker is lost or the arguments cannot be sent.
   */
  call(name: string, args: readonly unknown[]): WorkerOutcome | Promise<WorkerOutcome>;
  terminate(): Promise<void>;
}

// Atomics.waitAsync exists on Node 20 (V8 11), but the project's ES2022 lib does not type it.
type WaitAsync = (
  a: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync.bind(Atomics);
/** How long the host waits for a call's answer before it looks at the shared state again. */
const WAIT_SLICE_MS = 50;

function workerScript(): URL {
  // Built layout: dist/index.js next to dist/worker-entry.js. Source layout (tests): use the build.
  const here = new URL('./worker-entry.js', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  const built = new URL('../dist/worker-entry.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw wasmError('WASM_WORKER_CRASHED', '@trust/wasm-host: dist/worker-entry.js not found', {
    hint: 'build the package first (pnpm turbo run build --filter=@trust/wasm-host)',
  });
}

/**
 * Starts a plugin in its own worker thread. Calls go through shared memory (`call-channel.ts`):
 * the host writes the request and notifies; the worker answers in the same buffer. For a short
 * call the host waits for the answer synchronously for up to `syncWaitMs` (no event-loop turn,
 * no timer, no message), otherwise it arms the deadline timer and waits asynchronously. At the
 * deadline the worker is terminated, so a spinning guest never holds the host.
 */
export async function startWorkerRuntime(o: WorkerRuntimeOptions): Promise<WorkerRuntime> {
  let broker: ReturnType<typeof createNetworkBroker> | undefined;
  const extra: Record<string, unknown> = {};
  const transfer: TransferListItem[] = [];
  if (o.broker) {
    const channel = new MessageChannel();
    const flag = new SharedArrayBuffer(4);
    const b = createNetworkBroker(o.broker);
    broker = b;
    serveSyncCalls(channel.port1, flag, (op, payload) => b.handle(op, payload));
    channel.port1.unref();
    extra.bridgePort = channel.port2;
    extra.bridgeFlag = flag;
    transfer.push(channel.port2);
  }
  const buffers = createCallBuffers(o.maxCallBytes);
  const ch = openCallChannel(buffers);
  const worker = new Worker(workerScript(), {
    workerData: {
      glueUrl: o.glueUrl,
      modules: Object.fromEntries(o.modules),
      plan: o.plan,
      maxMemoryBytes: o.maxMemoryBytes,
      maxOutputBytes: o.maxOutputBytes,
      maxHttpRequestBytes: o.maxHttpRequestBytes,
      callCtl: buffers.ctl,
      callData: buffers.data,
      ...extra,
    },
    transferList: transfer,
    resourceLimits: { maxOldGenerationSizeMb: o.maxHeapMb, maxYoungGenerationSizeMb: 16 },
    // the host descriptors the guest's filesystem opens (fs.openSync in the worker) are closed
    // by Node when the worker exits, also when it is terminated at a deadline (the default,
    // pinned here because the filesystem relies on it)
    trackUnmanagedFds: true,
    stdout: true,
    stderr: true,
    env: {},
  });
  worker.stdout.resume();
  worker.stderr.resume();
  const syncWaitMs = o.broker ? 0 : o.syncWaitMs;

  // the call in flight when the host stopped waiting synchronously
  let pending:
    | { resolve: (v: WorkerOutcome) => void; reject: (e: unknown) => void; name: string; timer: NodeJS.Timeout }
    | undefined;
  let lost: TrustError | undefined;
  let exited = false;
  const lose = (err: TrustError) => {
    if (lost) return;
    lost = err;
    o.onDeath(err);
    const p = pending;
    pending = undefined;
    if (p) {
      clearTimeout(p.timer);
      p.reject(err);
    }
  };
  const settle = (outcome: WorkerOutcome) => {
    const p = pending;
    if (!p) return; // timed out or the worker died
    pending = undefined;
    clearTimeout(p.timer);
    p.resolve(outcome);
  };

  await new Promise<void>((resolve, reject) => {
    worker.on(
      'message',
      (m: {
        type: string;
        stream?: 'stdout' | 'stderr';
        data?: Uint8Array;
        message?: string;
        outcome?: WorkerOutcome;
      }) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'init-error')
          reject(
            wasmError('WASM_INSTANTIATE_FAILED', `plugin ${o.id} failed to instantiate: ${m.message}`, {
              hint: 'the component could not be linked or its start function failed',
            }),
          );
        else if (m.type === 'stdio') o.onOutput(m.stream!, m.data!);
        else if (m.type === 'result') settle(m.outcome!);
      },
    );
    worker.on('error', (e: Error & { code?: string }) => {
      const err =
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? wasmError('WASM_MEMORY_LIMIT', `plugin ${o.id} ran out of memory (heap ceiling ${o.maxHeapMb} MB)`, {
              cause: e,
              hint: 'raise limits.maxHeapMb if the plugin legitimately needs more',
            })
          : wasmError('WASM_WORKER_CRASHED', `plugin ${o.id}'s worker crashed: ${e.message}`, {
              cause: e,
              hint: 'load the plugin again',
            });
      lose(err);
      reject(err);
    });
    worker.on('exit', () => {
      exited = true;
      broker?.close();
      const err = wasmError('WASM_WORKER_CRASHED', `plugin ${o.id}'s worker exited`, { hint: 'load the plugin again' });
      lose(err);
      reject(lost ?? err);
    });
  });
  worker.unref();

  const timeoutError = (name: string) =>
    wasmError(
      'WASM_TIMEOUT',
      `plugin ${o.id}: ${name} exceeded its deadline of ${o.callTimeoutMs} ms and was terminated`,
      { hint: 'raise limits.callTimeoutMs, or fix the guest' },
    );

  return {
    call(name, args) {
      if (lost) return Promise.reject(lost);
      const started = performance.now();
      let posted: boolean;
      try {
        posted = postRequest(ch, name, args);
      } catch (cause) {
        return Promise.reject(
          wasmError('WASM_EXPORT_UNKNOWN', `plugin ${o.id}: the arguments of ${name} cannot be copied to the plugin`, {
            cause,
            hint: 'pass plain data: numbers, bigints, strings, arrays, objects, typed arrays',
          }),
        );
      }
      if (!posted) {
        return Promise.reject(
          wasmError(
            'WASM_EXPORT_UNKNOWN',
            `plugin ${o.id}: the arguments of ${name} exceed limits.maxCallBytes (${ch.data.length})`,
            { hint: 'raise limits.maxCallBytes' },
          ),
        );
      }
      // Fast path: a short call answers while this thread waits, without an event-loop turn.
      if (syncWaitMs > 0) Atomics.wait(ch.ctl, 0, CALL_STATE.REQUEST, syncWaitMs);
      const state = Atomics.load(ch.ctl, 0);
      if (state === CALL_STATE.REPLY) return readPayload<WorkerOutcome>(ch);
      return new Promise<WorkerOutcome>((resolve, reject) => {
        const left = Math.max(1, o.callTimeoutMs - (performance.now() - started));
        const timer = setTimeout(() => {
          const err = timeoutError(name);
          lose(err);
          void worker.terminate();
        }, left);
        pending = { resolve, reject, name, timer };
        if (state === CALL_STATE.REPLY_MESSAGE) return; // the outcome is on its way as a message
        // Waits in short slices, looking at the state after each: a wake-up that does not reach
        // this thread (a call once hung until its deadline under heavy load with its answer
        // already written) then costs one slice, not the call.
        const check = (): void => {
          if (pending?.timer !== timer) return;
          const now = Atomics.load(ch.ctl, 0);
          if (now === CALL_STATE.REPLY) {
            settle(readPayload<WorkerOutcome>(ch));
            return;
          }
          if (now !== CALL_STATE.REQUEST) return; // REPLY_MESSAGE: the message settles it
          const wait = waitAsync(ch.ctl, 0, CALL_STATE.REQUEST, WAIT_SLICE_MS);
          if (wait.async) void wait.value.then(check);
          else check();
        };
        check();
      });
    },
    async terminate() {
      lose(wasmError('WASM_PLUGIN_DEAD', `plugin ${o.id} was disposed`, { hint: 'load the plugin again' }));
      if (!exited) await worker.terminate();
      broker?.close();
    },
  };
}
