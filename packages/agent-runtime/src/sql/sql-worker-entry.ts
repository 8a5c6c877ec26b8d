/**
 * An agent's SQL worker thread, started by sql-thread-host.ts. It opens the agent file on its own
 * two connections (sql-engine.ts), loads the interrupt library's agent entry point into both
 * (which registers them under this thread's OS thread id), reports that id, then serves requests
 * over the shared-memory channel (sql-channel.ts) forever, parked in `Atomics.wait` in between.
 *
 * The host stops a statement by interrupting its connection from the main thread
 * (`sqlite3_interrupt`, through the library); the statement ends with SQLITE_INTERRUPT and its
 * transaction rolls back. Only when that does not answer in time does the host terminate this thread.
 */
import { readlinkSync } from 'node:fs';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { createSqlEngine, type SqlEngine } from './sql-engine.js';
import { toWireError, type SqlRequest } from './sql-host-protocol.js';
import { nextCall, postReply } from '@trust/core/node';
import { WRITES_DONE, codecOf, openChannel, type SqlChannel, type SqlChannelBuffers } from './sql-channel.js';
import { AGENT_ENTRY, loadEntry } from './sql-extension.js';

/** What crosses back for one request. `interrupted`: SQLite reported SQLITE_INTERRUPT. */
export type ThreadReply =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ReturnType<typeof toWireError>; readonly interrupted: boolean };

export interface SqlWorkerData {
  readonly path: string;
  readonly lib: string;
  readonly buffers: SqlChannelBuffers;
  readonly port: MessagePort;
  /** After an answer, how long this thread polls for the next request before it sleeps, in µs. */
  readonly spinMicros: number;
}

function isInterrupt(e: unknown): boolean {
  for (let x = e, i = 0; x && i < 4; x = (x as { cause?: unknown }).cause, i++)
    if ((x as { code?: unknown }).code === 'SQLITE_INTERRUPT') return true;
  return false;
}

function handle(engine: SqlEngine, m: SqlRequest): { reply: ThreadReply; binary: boolean } {
  try {
    if (m.kind === 'check')
      return {
        reply: { ok: true, value: engine.check(m.mode, m.sql, m.params, m.protections, m.authorized) },
        binary: false,
      };
    if (m.kind === 'query') {
      const { result, binary } = engine.query(m.sql, m.params, { maxRows: m.maxRows, maxBytes: m.maxBytes });
      return { reply: { ok: true, value: result }, binary };
    }
    const value = engine.execute(m.sql, m.params, m.protections, m.authorized, m.maxGrowthBytes);
    return { reply: { ok: true, value }, binary: false };
  } catch (e) {
    return { reply: { ok: false, error: toWireError(e), interrupted: isInterrupt(e) }, binary: false };
  }
}

function serve(engine: SqlEngine, ch: SqlChannel, spinMicros: number): never {
  for (;;) {
    // Parked in Atomics.wait slices in between, so terminate() always lands.
    const m = nextCall<SqlRequest>(ch, { spinMicros });
    const { reply, binary } = handle(engine, m);
    try {
      postReply(ch, reply, codecOf(binary));
    } catch (e) {
      postReply(ch, { ok: false, error: toWireError(e), interrupted: false }, 'json');
    }
    if (m.kind === 'execute') {
      // After the answer: a stop during the checkpoint can never turn a commit into a failure.
      try {
        engine.checkpoint();
      } catch {
        /* the next write retries it */
      }
      Atomics.add(ch.ctl, WRITES_DONE, 1); // from here on this thread holds no lock until the next write
    }
  }
}

function main(): void {
  const data = workerData as SqlWorkerData;
  let engine: SqlEngine;
  let tid: number;
  try {
    // The OS thread id: the library registers this thread's connections under the same number.
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isSafeInteger(tid) || tid <= 0) throw new Error('no OS thread id (/proc/thread-self)');
    engine = createSqlEngine(data.path, { onOpen: (db) => loadEntry(db, data.lib, AGENT_ENTRY) });
  } catch (e) {
    parentPort?.postMessage({ kind: 'fatal', error: toWireError(e) });
    return;
  }
  parentPort?.postMessage({ kind: 'ready', tid });
  serve(engine, openChannel(data.buffers, data.port), data.spinMicros);
}

main();
