import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type TransferListItem } from 'node:worker_threads';
import { isTrustError, type TrustError } from '@trust/core';
import { awaitReply, readReply, waitForReply } from '@trust/core/node';
import { createPluginChannelBuffers, openPluginChannel, postRequest, replyBytesBound } from './call-channel.js';
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
  const call = createPluginChannelBuffers(o.maxCallBytes, replyBytesBound(o));
  const overflow = new MessageChannel();
  const ch = openPluginChannel(call, 'host', overflow.port1);
  transfer.push(overflow.port2);
  const worker = new Worker(workerScript(), {
    workerData: {
      glueUrl: o.glueUrl,
      modules: Object.fromEntries(o.modules),
      plan: o.plan,
      maxMemoryBytes: o.maxMemoryBytes,
      maxOutputBytes: o.maxOutputBytes,
      maxHttpRequestBytes: o.maxHttpRequestBytes,
      call,
      callPort: overflow.port2,
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
    worker.on('message', (m: { type: string; stream?: 'stdout' | 'stderr'; data?: Uint8Array; message?: string }) => {
      if (m.type === 'ready') resolve();
      else if (m.type === 'init-error')
        reject(
          wasmError('WASM_INSTANTIATE_FAILED', `plugin ${o.id} failed to instantiate: ${m.message}`, {
            hint: 'the component could not be linked or its start function failed',
          }),
        );
      else if (m.type === 'stdio') o.onOutput(m.stream!, m.data!);
    });
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
      overflow.port1.close();
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

  /** Reads the answer; an unreadable one loses the worker (it is not trusted with another call). */
  const read = (): WorkerOutcome => {
    try {
      return readReply<WorkerOutcome>(ch);
    } catch (cause) {
      const err = wasmError('WASM_WORKER_CRASHED', `plugin ${o.id}'s worker sent an unreadable answer`, {
        cause,
        hint: 'load the plugin again',
      });
      lose(err);
      void worker.terminate();
      throw err;
    }
  };

  return {
    call(name, args) {
      if (lost) return Promise.reject(lost);
      const started = performance.now();
      try {
        postRequest(ch, name, args);
      } catch (cause) {
        return Promise.reject(
          isTrustError(cause, 'CHANNEL_MESSAGE_TOO_LARGE')
            ? wasmError(
                'WASM_EXPORT_UNKNOWN',
                `plugin ${o.id}: the arguments of ${name} exceed limits.maxCallBytes (${o.maxCallBytes})`,
                { hint: 'raise limits.maxCallBytes' },
              )
            : wasmError(
                'WASM_EXPORT_UNKNOWN',
                `plugin ${o.id}: the arguments of ${name} cannot be copied to the plugin`,
                {
                  cause,
                  hint: 'pass plain data: numbers, bigints, strings, arrays, objects, typed arrays',
                },
              ),
        );
      }
      // Fast path: a short call answers while this thread waits, without an event-loop turn.
      if (waitForReply(ch, { syncWaitMs })) {
        try {
          return read();
        } catch (e) {
          return Promise.reject(e);
        }
      }
      return new Promise<WorkerOutcome>((resolve, reject) => {
        const left = Math.max(1, o.callTimeoutMs - (performance.now() - started));
        const timer = setTimeout(() => {
          const err = timeoutError(name);
          lose(err);
          void worker.terminate();
        }, left);
        pending = { resolve, reject, name, timer };
        void awaitReply(ch, () => pending?.timer === timer).then((ready) => {
          if (!ready) return;
          try {
            settle(read());
          } catch {
            /* read() lost the worker, which rejected the call */
          }
        });
      });
    },
    async terminate() {
      lose(wasmError('WASM_PLUGIN_DEAD', `plugin ${o.id} was disposed`, { hint: 'load the plugin again' }));
      if (!exited) await worker.terminate();
      broker?.close();
    },
  };
}
