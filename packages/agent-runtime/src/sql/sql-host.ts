import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TrustError } from '@trust/core';
import { fromWireError, type SqlRequest, type SqlResponse } from './sql-host-protocol.js';

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
  throw new TrustError('SQL_HOST_FAILED', '@trust/agent-runtime: dist/sql-host-entry.js not found', { hint: 'build the package first (pnpm turbo run build --filter=@trust/agent-runtime)' });
}

interface Live { child: ChildProcess; exited: Promise<void>; ready: Promise<void>; stderr: string[] }

/**
 * Creates the SQL host for one agent file. Calls run one at a time, in order. A timed-out call
 * kills the process with SIGKILL: SQLite's WAL makes that equivalent to a crash, which it survives
 * (an uncommitted transaction leaves only frames without a commit record, ignored on recovery).
 *
 * @example
 * const host = createSqlHost({ path: adf.path });
 * await host.call({ kind: 'query', sql: 'select 1', params: [], maxRows: 10, maxBytes: 1e6 }, 2000);
 */
export function createSqlHost(options: SqlHostOptions): SqlHost {
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;
  const maxQueue = options.maxQueue ?? 32;
  let live: Live | undefined;
  let previousExit: Promise<void> = Promise.resolve();
  let tail: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  let nextId = 1;
  let closed = false;

  const fail = (msg: string, l?: Live) => new TrustError('SQL_HOST_FAILED', `the SQL process ${msg}${l && l.stderr.length ? `: ${l.stderr.join('').slice(-500)}` : ''}`, { hint: 'retry; the next call starts a fresh SQL process' });

  function start(): Live {
    const stderr: string[] = [];
    const child = fork(entryScript(), [options.path], {
      serialization: 'advanced',
      execArgv: [`--max-old-space-size=${options.maxHeapMb ?? 256}`],
      env: {},
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => { stderr.push(d); if (stderr.length > 20) stderr.shift(); });
    // A failed spawn or a failed send emits 'error' (never left unhandled: that would crash the
    // host); the process is then treated as dead. A spawn that never started emits no 'exit'.
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.on('error', (e) => {
        stderr.push(String(e));
        if (child.pid === undefined) child.emit('exit', null, null); // never spawned: no real 'exit' follows
        else child.kill('SIGKILL'); // a failed send: the channel is unusable; 'exit' follows
      });
    });
    // An idle SQL process never keeps the host alive; a call in flight does, through its timer.
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
    const l: Live = { child, exited, stderr, ready: Promise.resolve() };
    l.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => { child.kill('SIGKILL'); reject(fail(`did not start within ${startTimeoutMs} ms`, l)); }, startTimeoutMs);
      const onMessage = (m: SqlResponse) => {
        if (m.kind === 'ready') { done(); resolve(); } else if (m.kind === 'fatal') { done(); reject(fromWireError(m.error)); }
      };
      const onExit = () => { done(); reject(fail('exited while starting', l)); };
      const done = () => { clearTimeout(timer); child.off('message', onMessage); child.off('exit', onExit); };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
    l.ready.catch(() => { if (live === l) live = undefined; });
    return l;
  }

  function kill(l: Live): void {
    if (live === l) live = undefined;
    previousExit = l.exited;
    l.child.kill('SIGKILL');
    // Replace it at once (never reuse it), so the agent's next statement rarely waits for a start.
    void l.exited.then(() => { if (!closed && !live) { live = start(); live.ready.catch(() => undefined); } });
  }

  async function dispatch(request: SqlHostRequest, timeoutMs: number): Promise<unknown> {
    if (closed) throw new TrustError('SQL_CLOSED', 'the SQL host is closed');
    if (!live) {
      await previousExit; // a killed process has released its file locks before a new one opens the file
      live ??= start(); // the replacement kill() started may already be there
    }
    const l = live;
    await l.ready;
    const id = nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        kill(l);
        reject(new TrustError('SQL_TIMEOUT', `the statement ran longer than ${timeoutMs} ms and was stopped (its SQL process was killed; nothing it wrote was committed)`, {
          hint: 'narrow the query, add LIMIT or an index, or bound the recursion; the owner can raise limits.sql_timeout_ms / limits.sql_execute_timeout_ms',
        }));
      }, timeoutMs);
      const onMessage = (m: SqlResponse) => {
        if (!('id' in m) || m.id !== id) return;
        cleanup();
        if (m.kind === 'ok') resolve(m.value); else reject(fromWireError(m.error));
      };
      const onExit = () => { cleanup(); if (live === l) live = undefined; previousExit = l.exited; reject(fail('died during the statement (out of memory?)', l)); };
      const cleanup = () => { clearTimeout(timer); l.child.off('message', onMessage); l.child.off('exit', onExit); };
      l.child.on('message', onMessage);
      l.child.once('exit', onExit);
      l.child.send({ v: 1, id, ...request } as SqlRequest);
    });
  }

  return {
    call(request, timeoutMs) {
      if (closed) return Promise.reject(new TrustError('SQL_CLOSED', 'the SQL host is closed'));
      if (waiting >= maxQueue) return Promise.reject(new TrustError('SQL_BUSY', `${waiting} SQL statements are already waiting for this agent`, { hint: 'wait for earlier statements to finish' }));
      waiting++;
      const run = tail.then(() => dispatch(request, timeoutMs)).finally(() => { waiting--; });
      tail = run.catch(() => undefined);
      return run;
    },
    pid: () => live?.child.pid,
    async close() {
      closed = true;
      const l = live;
      live = undefined;
      if (l) {
        // Ask it to close its connections; kill it if a statement keeps it busy.
        l.child.disconnect();
        const t = setTimeout(() => l.child.kill('SIGKILL'), 2000);
        await l.exited;
        clearTimeout(t);
      }
      await previousExit;
    },
  };
}
