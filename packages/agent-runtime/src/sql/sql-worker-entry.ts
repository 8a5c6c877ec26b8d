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
import {
  STATE,
  WRITES_DONE,
  openChannel,
  receive,
  send,
  type SqlChannel,
  type SqlChannelBuffers,
} from './sql-channel.js';
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

function serve(engine: SqlEngine, ch: SqlChannel): never {
  let seen: number = Atomics.load(ch.ctl, 0);
  for (;;) {
    // Short slices, so terminate() always lands between two waits.
    Atomics.wait(ch.ctl, 0, seen, 100);
    seen = Atomics.load(ch.ctl, 0);
    if (seen !== STATE.REQUEST && seen !== STATE.REQUEST_PORT) continue;
    const m = receive<SqlRequest>(ch, seen);
    const { reply, binary } = handle(engine, m);
    // Wait on the value written here: a next request posted meanwhile is seen at once.
    try {
      seen = send(ch, reply, binary, STATE.REPLY, STATE.REPLY_PORT);
    } catch (e) {
      seen = send(ch, { ok: false, error: toWireError(e), interrupted: false }, false, STATE.REPLY, STATE.REPLY_PORT);
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
  serve(engine, openChannel(data.buffers, data.port));
}

main();
