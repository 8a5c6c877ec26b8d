import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TrustError } from '@trust/core';
import { fromWireError, type SqlRequest, type SqlResponse } from './sql-host-protocol.js';
import { createSqlCallQueue } from './sql-call-queue.js';
import { deathError as stopError, type StopReason } from './sql-stop-errors.js';
import { createFrameReader, encodeFrame, needsStructuredClone } from './sql-wire.js';

/** Distributive Omit, so each request kind keeps its own fields. */
type WithoutEnvelope<T> = T extends unknown ? Omit<T, 'v' | 'id'> : never;
export type SqlHostRequest = WithoutEnvelope<SqlRequest>;

export interface SqlHostOptions {
  /** The agent's `.adf` file. */
  readonly path: string;
  /** How long a fresh SQL process may take to open the file; default 15 000 ms. */
  readonly startTimeoutMs?: number;
  /** Calls waiting behind the running one before new calls get `SQL_BUSY`; default 32. */
  readonly maxQueue?: number;
  /** V8 heap cap of the SQL process in MiB; default 256. */
  readonly maxHeapMb?: number;
}

/** One agent's SQL process: started lazily, killed at a time cap and replaced by a fresh one. */
export interface SqlHost {
  /** Runs one request; rejects with `SQL_TIMEOUT` once `timeoutMs` passed (the process is killed). */
  call(request: SqlHostRequest, timeoutMs: number): Promise<unknown>;
  /** True from sending a write statement until its process reports idle: it may hold the file's write lock. */
  mayHoldWriteLock(): boolean;
  /**
   * Kills the process now if it may hold the write lock; the statement's caller gets
   * `SQL_PREEMPTED` unless it had committed.
   */
  preempt(): void;
  /** The current process id, if one runs. */
  pid(): number | undefined;
  close(): Promise<void>;
}

function entryScript(): string {
  // Built layout: dist/index.js (or a chunk) next to dist/sql-host-entry.js. Source layout (tests): the build.
  for (const rel of ['./sql-host-entry.js', '../../dist/sql-host-entry.js']) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(p)) return p;
  }
  throw new TrustError('SQL_HOST_FAILED', '@trust/agent-runtime: dist/sql-host-entry.js not found', {
    hint: 'build the package first (pnpm turbo run build --filter=@trust/agent-runtime)',
  });
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
  timeoutMs: number;
}
type KillReason = StopReason;
interface Live {
  child: ChildProcess;
  exited: Promise<void>;
  ready: Promise<void>;
  stderr: string[];
  pending: Map<number, Pending>;
  writing: boolean;
  killed?: KillReason;
  onReady?: (m: SqlResponse) => void;
}

/**
 * Creates the SQL host for one agent file. Calls run one at a time, in order. A timed-out call
 * kills the process with SIGKILL: SQLite's WAL makes that equivalent to a crash, which it survives
 * (an uncommitted transaction leaves only frames without a commit record, ignored on recovery).
 * A killed write is answered once the process's output is fully read, so an answer that was
 * already written (a commit) still wins over the kill; a killed read is answered at once.
 *
 * @example
 * const host = createSqlHost({ path: adf.path });
 * await host.call({ kind: 'query', sql: 'select 1', params: [], maxRows: 10, maxBytes: 1e6 }, 2000);
 */
export function createSqlHost(options: SqlHostOptions): SqlHost {
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;
  const enqueue = createSqlCallQueue(options.maxQueue ?? 32);
  let live: Live | undefined;
  let previousExit: Promise<void> = Promise.resolve();
  let nextId = 1;
  let closed = false;

  const fail = (msg: string, l?: Live) =>
    new TrustError(
      'SQL_HOST_FAILED',
      `the SQL process ${msg}${l?.stderr.length ? `: ${l.stderr.join('').slice(-500)}` : ''}`,
      { hint: 'retry; the next call starts a fresh SQL process' },
    );

  function deathError(reason: KillReason | undefined, l: Live, p: Pending): TrustError {
    return reason ? stopError(reason, p.timeoutMs, 'killed') : fail('died during the statement (out of memory?)', l);
  }

  function onMessage(l: Live, m: SqlResponse): void {
    if (m.kind === 'ready' || m.kind === 'fatal') {
      l.onReady?.(m);
      return;
    }
    if (m.kind === 'idle') {
      l.writing = false;
      return;
    }
    const p = l.pending.get(m.id);
    if (!p) return;
    l.pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.kind === 'ok') p.resolve(m.value);
    else p.reject(fromWireError(m.error));
  }

  function start(): Live {
    const stderr: string[] = [];
    const child = spawn(
      process.execPath,
      [`--max-old-space-size=${options.maxHeapMb ?? 256}`, entryScript(), options.path],
      {
        env: {},
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const l: Live = {
      child,
      exited: Promise.resolve(),
      ready: Promise.resolve(),
      stderr,
      pending: new Map(),
      writing: false,
    };
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr.push(d);
      if (stderr.length > 20) stderr.shift();
    });
    const read = createFrameReader((m) => onMessage(l, m as SqlResponse));
    child.stdout?.on('data', (chunk: Buffer) => {
      try {
        read(chunk);
      } catch (e) {
        stderr.push(String(e));
        child.kill('SIGKILL');
      }
    });
    // A write to a dead process's stdin fails with EPIPE: its death is reported through 'close'.
    child.stdin?.on('error', () => undefined);
    // 'close' comes after the process exited AND its stdout was read to the end: every answer it
    // wrote before dying has been handled, so what is still pending really did not answer.
    l.exited = new Promise<void>((resolve) => {
      child.once('close', () => {
        l.writing = false;
        if (live === l) live = undefined;
        for (const [id, p] of l.pending) {
          l.pending.delete(id);
          clearTimeout(p.timer);
          p.reject(deathError(l.killed, l, p));
        }
        resolve();
      });
      child.on('error', (e) => {
        stderr.push(String(e));
        if (child.pid === undefined)
          child.emit('close', null, null); // never spawned: no real 'close' follows
        else child.kill('SIGKILL');
      });
    });
    // An idle SQL process never keeps the host alive; a call in flight does, through its timer.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr])
      (s as unknown as { unref?: () => void } | null)?.unref?.();
    l.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(fail(`did not start within ${startTimeoutMs} ms`, l));
      }, startTimeoutMs);
      l.onReady = (m) => {
        clearTimeout(timer);
        l.onReady = undefined;
        if (m.kind === 'ready') resolve();
        else if (m.kind === 'fatal') reject(fromWireError(m.error));
      };
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

  function kill(l: Live, reason: KillReason): void {
    if (live === l) live = undefined;
    l.killed ??= reason;
    previousExit = l.exited;
    // Its pending call is answered at 'close': keep the host alive until the process is gone and its output read.
    l.child.ref();
    for (const s of [l.child.stdout, l.child.stderr]) (s as unknown as { ref?: () => void } | null)?.ref?.();
    l.child.kill('SIGKILL');
    // Replace it at once (never reuse it), so the agent's next statement rarely waits for a start.
    void l.exited.then(() => {
      if (!closed && !live) {
        live = start();
        live.ready.catch(() => undefined);
      }
    });
  }

  async function dispatch(request: SqlHostRequest, timeoutMs: number): Promise<unknown> {
    if (closed) throw new TrustError('SQL_CLOSED', 'the SQL host is closed');
    if (!live) {
      await previousExit; // a killed process has released its file locks before a new one opens the file
      live ??= start(); // the replacement kill() started may already be there
    }
    const l = live;
    await l.ready;
    if (l.killed || l.child.exitCode !== null) throw fail('exited before the statement was sent', l);
    const id = nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A read has nothing to commit: answer at once. A write is answered at 'close', once any
        // answer it wrote before the kill has been read (a commit must not be reported as a timeout).
        const p = l.pending.get(id);
        if (p && request.kind !== 'execute') {
          l.pending.delete(id);
          p.reject(deathError('timeout', l, p));
        }
        kill(l, 'timeout');
      }, timeoutMs);
      l.pending.set(id, { resolve, reject, timer, timeoutMs });
      if (request.kind === 'execute') l.writing = true;
      const binary = request.params.some(needsStructuredClone);
      l.child.stdin?.write(encodeFrame({ v: 2, id, ...request }, binary));
    });
  }

  return {
    call(request, timeoutMs) {
      if (closed) return Promise.reject(new TrustError('SQL_CLOSED', 'the SQL host is closed'));
      return enqueue(() => dispatch(request, timeoutMs));
    },
    mayHoldWriteLock: () => live?.writing === true,
    preempt() {
      const l = live;
      if (l?.writing) kill(l, 'preempt');
    },
    pid: () => live?.child.pid,
    async close() {
      closed = true;
      const l = live;
      live = undefined;
      if (l) {
        // Ask it to close its connections (end of stdin); kill it if a statement keeps it busy.
        l.child.stdin?.end();
        const t = setTimeout(() => l.child.kill('SIGKILL'), 2000);
        await l.exited;
        clearTimeout(t);
      }
      await previousExit;
    },
  };
}
