import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TrustError } from '@trust/core';
import type { WorkerInit, WorkerToHost } from './worker-protocol.js';

/** Default number of code workers of one sandbox: min(2, CPUs). */
export const defaultCodeWorkers = (): number => Math.max(1, Math.min(2, availableParallelism()));

/** V8 heap limits of one code worker (its JavaScript only: guest memory is QuickJS's linear memory). */
export const CODE_WORKER_HEAP = Object.freeze({
  maxOldGenerationSizeMb: 48,
  maxYoungGenerationSizeMb: 8,
  stackSizeMb: 4,
});

/** Run slots per worker: the top-level run plus its nested runs. */
export const SLOTS_PER_WORKER = 32;

/** A live code worker. `busy` while a top-level run (and its nested runs) owns it. */
export interface CodeWorker {
  readonly thread: Worker;
  readonly stopFlags: Int32Array;
  busy: boolean;
  /** Set once the worker is terminated or exited; never handed out again. */
  dead: boolean;
  /** Resolves once the worker has loaded QuickJS (or has died: check `dead`). */
  readonly ready: Promise<void>;
}

/** Counters of a pool (for operators and tests: a retired worker is never seen again). */
export interface CodeWorkerStats {
  readonly started: number;
  readonly retired: number;
  readonly alive: number;
  readonly busy: number;
}

/** Handlers the sandbox installs on every worker it gets. */
export interface WorkerEvents {
  onMessage(w: CodeWorker, m: WorkerToHost): void;
  /** The thread ended (terminated, crashed, out of heap); `error` is the last error event. */
  onExit(w: CodeWorker, error: Error | undefined): void;
}

/** A fixed-size pool: one top-level run per worker; a retired worker is replaced by a fresh one. */
export interface WorkerPool {
  acquire(signal?: AbortSignal): Promise<CodeWorker>;
  /** Gives a clean worker back. */
  release(w: CodeWorker): void;
  /** Terminates a worker (timeout, resource failure, abort); it is never reused. */
  retire(w: CodeWorker): void;
  /** Starts workers up front so the first runs do not pay for the spawn. */
  warm(): void;
  close(): Promise<void>;
  /** Workers started and retired so far, and those alive now. */
  stats(): CodeWorkerStats;
  readonly size: number;
}

function workerScript(): URL {
  // Built layout: dist/index.js next to dist/code-worker.js. Source layout (tests): use the build.
  const here = new URL('./code-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  const built = new URL('../../dist/code-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new TrustError('CODE_WORKER_MISSING', '@trust/agent-runtime: dist/code-worker.js not found', {
    hint: 'build the package first (pnpm turbo run build --filter=@trust/agent-runtime)',
  });
}

/** Creates the pool. Workers are spawned lazily, up to `size`; idle ones do not keep the process alive. */
export function createWorkerPool(o: {
  size: number;
  init: Omit<WorkerInit, 'stopFlags'>;
  events: WorkerEvents;
}): WorkerPool {
  const all = new Set<CodeWorker>();
  const idle: CodeWorker[] = [];
  const waiters: Array<{ resolve: (w: CodeWorker) => void; reject: (e: unknown) => void }> = [];
  let closed = false;
  let started = 0;
  let retired = 0;

  const spawn = (): CodeWorker => {
    const stopFlags = new SharedArrayBuffer(4 * SLOTS_PER_WORKER);
    const init: WorkerInit = { ...o.init, stopFlags };
    started++;
    const thread = new Worker(workerScript(), {
      workerData: init,
      resourceLimits: CODE_WORKER_HEAP,
      env: {},
      execArgv: [],
      stdout: true,
      stderr: true,
    });
    thread.stdout.resume();
    thread.stderr.resume();
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => {
      markReady = resolve;
    });
    const w: CodeWorker = { thread, stopFlags: new Int32Array(stopFlags), busy: false, dead: false, ready };
    let lastError: Error | undefined;
    thread.on('message', (m: WorkerToHost) => {
      if (m.t === 'ready') markReady();
      else o.events.onMessage(w, m);
    });
    thread.on('error', (e) => {
      lastError = e;
    });
    thread.on('exit', () => {
      if (!w.dead && !closed) retired++;
      w.dead = true;
      markReady();
      all.delete(w);
      const i = idle.indexOf(w);
      if (i >= 0) idle.splice(i, 1);
      o.events.onExit(w, lastError);
      pump();
    });
    thread.unref();
    all.add(w);
    return w;
  };

  const pump = () => {
    while (!closed && waiters.length > 0) {
      let w = idle.shift();
      if (!w && all.size < o.size) w = spawn();
      if (!w) return;
      w.busy = true;
      w.thread.ref();
      waiters.shift()!.resolve(w);
    }
  };

  return {
    size: o.size,
    acquire(signal) {
      if (closed) return Promise.reject(new TrustError('CODE_SANDBOX_CLOSED', 'the code sandbox is closed'));
      return new Promise<CodeWorker>((resolve, reject) => {
        const waiter = { resolve, reject };
        waiters.push(waiter);
        signal?.addEventListener(
          'abort',
          () => {
            const i = waiters.indexOf(waiter);
            if (i >= 0) {
              waiters.splice(i, 1);
              reject(new TrustError('CODE_ABORTED', 'execution aborted while waiting for a code worker'));
            }
          },
          { once: true },
        );
        pump();
      });
    },
    release(w) {
      if (w.dead) {
        pump();
        return;
      }
      w.busy = false;
      w.stopFlags.fill(0);
      w.thread.unref();
      idle.push(w);
      pump();
    },
    retire(w) {
      w.busy = false;
      if (!w.dead) {
        w.dead = true;
        retired++;
        all.delete(w);
        void w.thread.terminate();
      }
      // A fresh worker replaces it now, so the next run does not pay for the spawn.
      if (!closed && waiters.length === 0 && all.size < o.size) idle.push(spawn());
      pump();
    },
    stats: () => ({ started, retired, alive: all.size, busy: [...all].filter((w) => w.busy).length }),
    warm() {
      while (!closed && all.size < o.size) idle.push(spawn());
    },
    async close() {
      closed = true;
      for (const waiter of waiters.splice(0))
        waiter.reject(new TrustError('CODE_SANDBOX_CLOSED', 'the code sandbox is closed'));
      idle.length = 0;
      await Promise.all(
        [...all].map((w) => {
          w.dead = true;
          return w.thread.terminate();
        }),
      );
      all.clear();
    },
  };
}
