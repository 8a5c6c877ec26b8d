import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { MessageChannel, Worker } from 'node:worker_threads';
import { TrustError } from '@trust/core';
import { fromWireError, type WireError } from './sql-host-protocol.js';
import type { SqlHost, SqlHostRequest } from './sql-host.js';
import { MAX_SYNC_WAIT_MS, awaitReply, isReplyReady, postCall, readReply, waitForReply } from '@trust/core/node';
import { WRITES_DONE, WRITES_SENT, codecOf, createChannelBuffers, openChannel } from './sql-channel.js';
import type { SqlInterrupter } from './sql-interrupt.js';
import { needsStructuredClone } from './sql-wire.js';
import type { SqlWorkerData, ThreadReply } from './sql-worker-entry.js';
import { createSqlCallQueue } from './sql-call-queue.js';
import { deathError, type StopReason } from './sql-stop-errors.js';

export interface SqlThreadHostOptions {
  /** The agent's `.adf` file. */
  readonly path: string;
  /** The compiled interrupt library (sql-interrupt.ts). */
  readonly lib: string;
  /** The host's side of that library, on this thread. */
  readonly interrupter: SqlInterrupter;
  /** How long a fresh worker may take to open the file; default 15 000 ms. */
  readonly startTimeoutMs?: number;
  /** Calls waiting behind the running one before new calls get `SQL_BUSY`; default 32. */
  readonly maxQueue?: number;
  /** V8 heap cap of the worker in MiB; default 256. */
  readonly maxHeapMb?: number;
  /**
   * How long the host waits for the answer on its own thread before it waits asynchronously;
   * default 1 ms, never more than `MAX_SYNC_WAIT_MS` (2 ms): the bound on how long one statement
   * holds the host's event loop.
   */
  readonly syncWaitMs?: number;
  /** Of that wait, how long the host polls before it sleeps, in µs; default HOST_SPIN_MICROS. */
  readonly hostSpinMicros?: number;
  /**
   * After an answer, how long the worker polls for the next request before it sleeps, in µs;
   * default WORKER_SPIN_MICROS.
   */
  readonly workerSpinMicros?: number;
  /** After an interrupt, how long the worker has to answer before it is terminated; default 1 000 ms. */
  readonly stopMarginMs?: number;
  /** Size of the shared buffer in bytes; larger messages go over a port. Default 1 MiB. */
  readonly channelBytes?: number;
}

/**
 * Busy-polling instead of sleeping saves a wake-up through the scheduler only while a CPU is free
 * for the other side. On the loaded 2-CPU machine the benchmarks ran on every spin setting measured
 * slower than none (both sides spinning: several times slower), so both default to 0 (package README).
 */
const HOST_SPIN_MICROS = 0;
const WORKER_SPIN_MICROS = 0;

function entryScript(): URL {
  // Built layout: dist/index.js (or a chunk) next to dist/sql-worker.js. Source layout (tests): the build.
  for (const rel of ['./sql-worker.js', '../../dist/sql-worker.js']) {
    const u = new URL(rel, import.meta.url);
    if (existsSync(fileURLToPath(u))) return u;
  }
  throw new TrustError('SQL_HOST_FAILED', '@trust/agent-runtime: dist/sql-worker.js not found', {
    hint: 'build the package first (pnpm turbo run build --filter=@trust/agent-runtime)',
  });
}

interface Pending {
  readonly kind: SqlHostRequest['kind'];
  readonly timeoutMs: number;
  resolve(v: unknown): void;
  reject(e: Error): void;
  reason?: StopReason;
  timers: NodeJS.Timeout[];
}
interface Live {
  readonly worker: Worker;
  readonly ch: ReturnType<typeof openChannel>;
  tid: number;
  ready: Promise<void>;
  exited: Promise<void>;
  pending?: Pending;
  stopped: boolean;
  /** An interrupt was sent since the last arm: the stop mark must be cleared before the next request. */
  marked: boolean;
  error?: string;
}

/**
 * One agent's SQL worker thread: started lazily; a statement past its cap is interrupted
 * (`sqlite3_interrupt` from this thread) and answers `SQL_TIMEOUT`; the worker is reused. Only a
 * worker that does not answer within `stopMarginMs` of the interrupt is terminated and replaced,
 * never reused. A host write that needs the file's lock interrupts a write in flight the same way
 * (`SQL_PREEMPTED`, unless it had committed). Same contract as the process host (sql-host.ts).
 *
 * @example
 * const host = createSqlThreadHost({ path: adf.path, lib, interrupter });
 */
export function createSqlThreadHost(options: SqlThreadHostOptions): SqlHost & { threadId(): number | undefined } {
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;
  const enqueue = createSqlCallQueue(options.maxQueue ?? 32);
  const syncWaitMs = Math.min(options.syncWaitMs ?? 1, MAX_SYNC_WAIT_MS);
  const spinMicros = options.hostSpinMicros ?? HOST_SPIN_MICROS;
  const stopMarginMs = options.stopMarginMs ?? 1_000;
  const { interrupter } = options;
  let live: Live | undefined;
  let previousExit: Promise<void> = Promise.resolve();
  let closed = false;

  const fail = (msg: string, l?: Live) =>
    new TrustError('SQL_HOST_FAILED', `the SQL worker ${msg}${l?.error ? `: ${l.error.slice(-500)}` : ''}`, {
      hint: 'retry; the next call starts a fresh SQL worker',
    });

  function settle(l: Live, p: Pending, r: ThreadReply): void {
    if (l.pending !== p) return;
    l.pending = undefined;
    for (const t of p.timers) clearTimeout(t);
    if (r.ok) p.resolve(r.value);
    else if (p.reason && r.interrupted) p.reject(deathError(p.reason, p.timeoutMs, 'interrupted'));
    else p.reject(fromWireError(r.error as WireError));
  }

  /** Looks at the channel: settles the call if its answer is there. */
  function poll(l: Live, p: Pending): boolean {
    if (!isReplyReady(l.ch)) return false;
    let r: ThreadReply;
    try {
      r = readReply<ThreadReply>(l.ch);
    } catch (e) {
      // An unreadable answer: fail this call; the worker is not trusted with another.
      if (l.pending === p) {
        l.pending = undefined;
        for (const t of p.timers) clearTimeout(t);
        p.reject(fail(`sent an unreadable answer (${(e as Error).message})`, l));
      }
      terminate(l);
      return true;
    }
    settle(l, p, r);
    return true;
  }

  function start(): Live {
    const { port1, port2 } = new MessageChannel();
    const buffers = createChannelBuffers(options.channelBytes ?? 1024 * 1024);
    const data: SqlWorkerData = {
      path: options.path,
      lib: options.lib,
      buffers,
      port: port2,
      spinMicros: options.workerSpinMicros ?? WORKER_SPIN_MICROS,
    };
    const worker = new Worker(entryScript(), {
      workerData: data,
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 256, maxYoungGenerationSizeMb: 16 },
      env: {},
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (l.error === undefined || l.error.length < 4000) l.error = `${l.error ?? ''}${d}`;
    });
    const l: Live = {
      worker,
      ch: openChannel(buffers, port1),
      tid: 0,
      marked: false,
      ready: Promise.resolve(),
      exited: Promise.resolve(),
      stopped: false,
    };
    worker.on('error', (e) => {
      l.error = inspect(e, { depth: 2, breakLength: Infinity });
    });
    l.exited = new Promise<void>((resolve) => {
      worker.once('exit', () => {
        if (live === l) live = undefined;
        const p = l.pending;
        // An answer written before the end still wins (a commit is never reported as a failure).
        if (p && !poll(l, p)) {
          l.pending = undefined;
          for (const t of p.timers) clearTimeout(t);
          p.reject(
            p.reason
              ? deathError(p.reason, p.timeoutMs, 'terminated')
              : fail('died during the statement (out of memory?)', l),
          );
        }
        port1.close();
        resolve();
      });
    });
    worker.unref();
    l.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(fail(`did not start within ${startTimeoutMs} ms`, l));
      }, startTimeoutMs);
      worker.once('message', (m: { kind: string; tid?: number; error?: WireError }) => {
        clearTimeout(timer);
        if (m.kind === 'ready' && typeof m.tid === 'number') {
          l.tid = m.tid;
          resolve();
        } else {
          void worker.terminate();
          reject(m.error ? fromWireError(m.error) : fail('sent no thread id', l));
        }
      });
      void l.exited.then(() => {
        clearTimeout(timer);
        reject(fail('exited while starting', l));
      });
    });
    l.ready.catch(() => {
      if (live === l) live = undefined;
    });
    return l;
  }

  /** Terminates a worker that did not answer an interrupt; it is never reused. */
  function terminate(l: Live): void {
    if (l.stopped) return;
    l.stopped = true;
    if (live === l) live = undefined;
    previousExit = l.exited;
    // terminate() lands only once the thread is back in JavaScript. A read has nothing to commit:
    // it is answered now. A write is answered at 'exit', once an answer it wrote before can be seen.
    const p = l.pending;
    if (p && p.kind !== 'execute') {
      l.pending = undefined;
      for (const t of p.timers) clearTimeout(t);
      p.reject(deathError(p.reason ?? 'timeout', p.timeoutMs, 'terminated'));
    }
    l.worker.ref();
    void l.worker.terminate();
    void l.exited.then(() => {
      if (!closed && !live) {
        live = start();
        live.ready.catch(() => undefined);
      }
    });
  }

  function stop(l: Live, p: Pending, reason: StopReason): void {
    p.reason ??= reason;
    l.marked = true;
    interrupter.interrupt(l.tid);
    p.timers.push(setTimeout(() => terminate(l), stopMarginMs));
  }

  async function dispatch(request: SqlHostRequest, timeoutMs: number): Promise<unknown> {
    if (closed) throw new TrustError('SQL_CLOSED', 'the SQL host is closed');
    if (!live) {
      await previousExit; // a terminated worker has closed its connections before a new one opens the file
      live ??= start();
    }
    const l = live;
    await l.ready;
    if (l.stopped) throw fail('was stopped before the statement was sent', l);
    if (l.marked) {
      interrupter.arm(l.tid);
      l.marked = false;
    }
    const started = performance.now();
    if (request.kind === 'execute') Atomics.add(l.ch.ctl, WRITES_SENT, 1);
    try {
      postCall(l.ch, { v: 2, id: 0, ...request }, codecOf(request.params.some(needsStructuredClone)));
    } catch (e) {
      if (request.kind === 'execute') Atomics.sub(l.ch.ctl, WRITES_SENT, 1); // nothing was sent
      throw e;
    }
    // Fast path: a short statement answers while this thread waits (at most syncWaitMs), without
    // an event-loop turn.
    waitForReply(l.ch, { syncWaitMs, spinMicros });
    return new Promise<unknown>((resolve, reject) => {
      const p: Pending = { kind: request.kind, timeoutMs, resolve, reject, timers: [] };
      l.pending = p;
      if (poll(l, p)) return;
      l.worker.ref();
      const left = Math.max(1, timeoutMs - (performance.now() - started));
      p.timers.push(setTimeout(() => stop(l, p, 'timeout'), left));
      void awaitReply(l.ch, () => l.pending === p).then((ready) => {
        if (ready && poll(l, p) && !l.stopped) l.worker.unref();
      });
    });
  }

  return {
    call(request, timeoutMs) {
      if (closed) return Promise.reject(new TrustError('SQL_CLOSED', 'the SQL host is closed'));
      return enqueue(() => dispatch(request, timeoutMs));
    },
    mayHoldWriteLock() {
      const l = live;
      return !!l && Atomics.load(l.ch.ctl, WRITES_SENT) !== Atomics.load(l.ch.ctl, WRITES_DONE);
    },
    preempt() {
      const l = live;
      if (!l || Atomics.load(l.ch.ctl, WRITES_SENT) === Atomics.load(l.ch.ctl, WRITES_DONE)) return;
      const p = l.pending;
      if (p?.kind === 'execute') stop(l, p, 'preempt');
      else {
        l.marked = true;
        interrupter.interrupt(l.tid); // the checkpoint after an answered write: nothing to report
      }
    },
    pid: () => undefined,
    threadId: () => live?.worker.threadId,
    async close() {
      closed = true;
      const l = live;
      live = undefined;
      if (l) {
        l.stopped = true;
        if (l.pending) interrupter.interrupt(l.tid);
        await l.worker.terminate();
        await l.exited;
      }
      await previousExit;
    },
  };
}
