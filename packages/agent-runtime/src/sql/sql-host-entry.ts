/**
 * The SQL process: one per agent, started by sql-host.ts with the agent's file path as its only
 * argument. It runs agent SQL on its own connections and answers in frames (sql-wire.ts): requests
 * arrive on stdin, answers leave on stdout. The host kills it (SIGKILL) at a statement's time cap,
 * or when it must write the file while a statement here holds the write lock, because SQLite
 * cannot be interrupted through better-sqlite3 and a worker thread cannot be stopped while it is
 * inside SQLite.
 *
 * Answers are written with a blocking `writeSync` on fd 1 (a pipe the OS made blocking for this
 * process): an answer is in the kernel before the next line runs. So an `execute` answer is
 * on its way before the checkpoint that follows it, and a kill during that checkpoint can never
 * turn a commit into a reported failure.
 */
import { writeSync } from 'node:fs';
import { createSqlEngine, type SqlEngine } from './sql-engine.js';
import { toWireError, type SqlRequest, type SqlResponse } from './sql-host-protocol.js';
import { createFrameReader, encodeFrame } from './sql-wire.js';

function send(m: SqlResponse, binary = false): void {
  const frame = encodeFrame(m, binary);
  let off = 0;
  while (off < frame.length) off += writeSync(1, frame, off);
}

function handle(engine: SqlEngine, m: SqlRequest): void {
  try {
    if (m.kind === 'check')
      send({ v: 2, id: m.id, kind: 'ok', value: engine.check(m.mode, m.sql, m.params, m.protections, m.authorized) });
    else if (m.kind === 'query') {
      const { result, binary } = engine.query(m.sql, m.params, { maxRows: m.maxRows, maxBytes: m.maxBytes });
      send({ v: 2, id: m.id, kind: 'ok', value: result }, binary);
    } else {
      const value = engine.execute(m.sql, m.params, m.protections, m.authorized, m.maxGrowthBytes);
      send({ v: 2, id: m.id, kind: 'ok', value });
      engine.checkpoint(); // after the answer (see above)
    }
  } catch (e) {
    send({ v: 2, id: m.id, kind: 'error', error: toWireError(e) });
  }
  // From here on this process holds no lock until the next request.
  if (m.kind === 'execute') send({ v: 2, id: m.id, kind: 'idle' });
}

function main(): void {
  const path = process.argv[2];
  let engine: SqlEngine;
  try {
    if (!path) throw new Error('usage: sql-host-entry <file.adf> (frames on stdin/stdout)');
    engine = createSqlEngine(path);
  } catch (e) {
    send({ v: 2, kind: 'fatal', error: toWireError(e) });
    process.exit(1);
  }
  const read = createFrameReader((raw) => {
    const m = raw as SqlRequest;
    if (m?.v === 2) handle(engine, m);
  });
  process.stdin.on('data', (chunk: Buffer) => {
    try {
      read(chunk);
    } catch {
      engine.close();
      process.exit(2);
    }
  });
  process.stdin.on('end', () => {
    engine.close();
    process.exit(0);
  });
  send({ v: 2, kind: 'ready' });
}

main();
