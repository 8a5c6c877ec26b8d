/**
 * The SQL process: one per agent, started by sql-host.ts with the agent's file path as its only
 * argument. It runs agent SQL on its own connections and answers over the IPC channel. The host
 * kills it (SIGKILL) at a statement's time cap, because SQLite cannot be interrupted through
 * better-sqlite3 and a worker thread cannot be stopped while it is inside SQLite.
 */
import { createSqlEngine, type SqlEngine } from './sql-engine.js';
import { toWireError, type SqlRequest, type SqlResponse } from './sql-host-protocol.js';

function main(): void {
  const send = (m: SqlResponse) => process.send?.(m);
  const path = process.argv[2];
  let engine: SqlEngine;
  try {
    if (!path || !process.send) throw new Error('usage: sql-host-entry <file.adf> (over an IPC channel)');
    engine = createSqlEngine(path);
  } catch (e) {
    send({ v: 1, kind: 'fatal', error: toWireError(e) });
    process.exit(1);
  }
  process.on('disconnect', () => { engine.close(); process.exit(0); });
  process.on('message', (raw) => {
    const m = raw as SqlRequest;
    if (m?.v !== 1) return;
    try {
      if (m.kind === 'check') send({ v: 1, id: m.id, kind: 'ok', value: engine.check(m.mode, m.sql, m.params, m.protections, m.authorized) });
      else if (m.kind === 'query') send({ v: 1, id: m.id, kind: 'ok', value: engine.query(m.sql, m.params, { maxRows: m.maxRows, maxBytes: m.maxBytes }) });
      else {
        send({ v: 1, id: m.id, kind: 'ok', value: engine.execute(m.sql, m.params, m.protections, m.authorized, m.maxGrowthBytes) });
        engine.checkpoint(); // after the answer: a kill during it can never turn a commit into a reported failure
      }
    } catch (e) {
      send({ v: 1, id: m.id, kind: 'error', error: toWireError(e) });
    }
  });
  send({ v: 1, kind: 'ready' });
}

main();
