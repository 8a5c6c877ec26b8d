// Agent SQL in its own process (issue 21 item 2): db_query's cost against raw better-sqlite3 in
// the host process, the bare process round trip the design pays on every statement, and what a
// time-cap kill costs (the answer's delay past the cap, and the next statement's fresh process).
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdf } from '@trust/agent-runtime';
import { createSqlGuard } from '@trust/agent-runtime/sql';
import { percentile, sampleInterleaved } from '../lib/table.mjs';

/** A child that echoes each message over Node's IPC channel (`serialization: 'advanced'`): the previous SQL channel. */
function startIpcEcho(dir) {
  const file = join(dir, 'echo-ipc.cjs');
  writeFileSync(
    file,
    "process.on('message', (m) => process.send(m)); process.on('disconnect', () => process.exit(0));\n",
  );
  const child = fork(file, [], {
    serialization: 'advanced',
    env: {},
    execArgv: [],
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  let pending;
  child.on('message', (m) => {
    const p = pending;
    pending = undefined;
    p?.(m);
  });
  return {
    ping: (m) =>
      new Promise((resolve) => {
        pending = resolve;
        child.send(m);
      }),
    close: () => child.disconnect(),
  };
}

// The SQL channel's frame: [u32 LE length of the rest][u8 codec, 1 = JSON][payload] (see sql-wire.ts).
// The echo child gets the same two functions as source text.
function frame(m) {
  const j = JSON.stringify(m);
  const o = Buffer.allocUnsafe(5 + Buffer.byteLength(j));
  o.writeUInt32LE(o.length - 4, 0);
  o[4] = 1;
  o.write(j, 5);
  return o;
}
function reader(on) {
  let b = Buffer.alloc(0);
  return (d) => {
    b = b.length ? Buffer.concat([b, d]) : d;
    while (b.length >= 4) {
      const n = b.readUInt32LE(0);
      if (b.length < 4 + n) return;
      const m = JSON.parse(b.toString('utf8', 5, 4 + n));
      b = b.subarray(4 + n);
      on(m);
    }
  };
}

/** A child that echoes each frame over stdin/stdout with a blocking write, as the SQL process answers: the hop alone. */
function startPipeEcho(dir) {
  const file = join(dir, 'echo-pipe.cjs');
  writeFileSync(
    file,
    `${frame}\n${reader}\nconst { writeSync } = require('fs');\nprocess.stdin.on('data', reader((m) => { const o = frame(m); let off = 0; while (off < o.length) off += writeSync(1, o, off); }));\nprocess.stdin.on('end', () => process.exit(0));\n`,
  );
  const child = spawn(process.execPath, [file], { env: {}, stdio: ['pipe', 'pipe', 'ignore'] });
  let pending;
  child.stdout.on(
    'data',
    reader((m) => {
      const p = pending;
      pending = undefined;
      p?.(m);
    }),
  );
  return {
    ping: (m) =>
      new Promise((resolve) => {
        pending = resolve;
        child.stdin.write(frame(m));
      }),
    close: () => child.stdin.end(),
  };
}

export default async function run({ log }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-sql-'));
  const adf = createAdf(join(dir, 'a.adf'));
  const echo = startPipeEcho(dir);
  const ipcEcho = startIpcEcho(dir);
  const guard = createSqlGuard(adf);
  try {
    adf.db.exec('CREATE TABLE local_items (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER)');
    const ins = adf.db.prepare('INSERT INTO local_items (name, qty) VALUES (?, ?)');
    adf.transaction(() => {
      for (let i = 0; i < 1000; i++) ins.run(`item${i}`, i);
    });
    // The same better-sqlite3 build the runtime uses (bench does not depend on it directly).
    const Database = adf.db.constructor;
    const raw = new Database(adf.path, { readonly: true });
    const sql = 'SELECT id, name, qty FROM local_items WHERE id BETWEEN ? AND ?';
    const rawPrepared = raw.prepare(sql);
    // The reply as the SQL process sends it: rows as arrays in column order.
    const reply = {
      v: 2,
      id: 1,
      kind: 'ok',
      value: { columns: ['id', 'name', 'qty'], rows: rawPrepared.raw(true).all(10, 20), truncated: false },
    };
    rawPrepared.raw(false);
    for (let i = 0; i < 300; i++) {
      await guard.runQuery(sql, [10, 20]);
      raw.prepare(sql).all(10, 20);
      await echo.ping(reply);
      await ipcEcho.ping(reply);
    }
    const N = 4000;
    const s = await sampleInterleaved(
      {
        guarded: () => guard.runQuery(sql, [10, 20]),
        rawEach: () => raw.prepare(sql).all(10, 20),
        rawCached: () => rawPrepared.all(10, 20),
        hop: () => echo.ping(reply),
        ipcHop: () => ipcEcho.ping(reply),
        check: () => guard.checkQuery(sql, [10, 20]),
      },
      N,
    );
    log(
      `db_query p50 ${percentile(s.guarded, 50)} ns, p99 ${percentile(s.guarded, 99)} ns; bare pipe hop with an 11-row reply p50 ${percentile(s.hop, 50)} ns (Node IPC: ${percentile(s.ipcHop, 50)} ns)`,
    );

    // A statement that never yields a row, capped at 200 ms: how late the SQL_TIMEOUT answer is,
    // and what the next statement pays to start a fresh SQL process.
    const capped = createSqlGuard(adf, { timeoutMs: 200 });
    await capped.runQuery('select 1');
    const late = [];
    const respawn = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await capped.runQuery('select count(*) from local_items a, local_items b, local_items c').catch((e) => {
        if (e.code !== 'SQL_TIMEOUT') throw e;
      });
      late.push(Math.round((performance.now() - t0 - 200) * 1e6));
      const t1 = performance.now();
      await capped.runQuery('select 1');
      respawn.push(Math.round((performance.now() - t1) * 1e6));
    }
    await capped.close();
    late.sort((a, b) => a - b);
    respawn.sort((a, b) => a - b);
    raw.close();
    return [
      {
        measure: 'db_query 11 rows (guarded, SQL process)',
        unit: 'ns/query',
        ours: percentile(s.guarded, 50),
        baseline: percentile(s.rawEach, 50),
        baselineName: 'better-sqlite3 prepare+all in-process',
        better: 'lower',
        target: { ratio: 2.5 },
      },
      {
        measure: 'db_query 11 rows vs cached stmt',
        unit: 'ns/query',
        ours: percentile(s.guarded, 50),
        baseline: percentile(s.rawCached, 50),
        baselineName: 'better-sqlite3 cached stmt.all',
        better: 'lower',
      },
      {
        measure: 'process round trip alone (framed pipe, 11-row reply)',
        unit: 'ns/hop',
        ours: percentile(s.hop, 50),
        baseline: percentile(s.rawEach, 50),
        baselineName: 'better-sqlite3 prepare+all in-process',
        better: 'lower',
      },
      {
        measure: 'process round trip over Node IPC (previous channel)',
        unit: 'ns/hop',
        ours: percentile(s.ipcHop, 50),
        baseline: percentile(s.rawEach, 50),
        baselineName: 'better-sqlite3 prepare+all in-process',
        better: 'lower',
      },
      {
        measure: 'db_query check only (cached verdict)',
        unit: 'ns/check',
        ours: percentile(s.check, 50),
        baseline: percentile(s.hop, 50),
        baselineName: 'bare pipe hop',
        better: 'lower',
      },
      {
        measure: 'SQL_TIMEOUT answer past a 200 ms cap (p50 of 5)',
        unit: 'ns',
        ours: percentile(late, 50),
        baseline: 200e6,
        baselineName: 'the cap itself',
        better: 'lower',
      },
      {
        measure: 'first statement after a kill (fresh SQL process, p50 of 5)',
        unit: 'ns',
        ours: percentile(respawn, 50),
        baseline: percentile(s.guarded, 50),
        baselineName: 'warm db_query',
        better: 'lower',
      },
    ];
  } finally {
    echo.close();
    ipcEcho.close();
    await guard.close();
    adf.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
