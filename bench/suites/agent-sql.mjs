// Agent SQL off the host's thread (issue 21 item 2): db_query's cost by default (the fast lane
// once the worker answered a statement), in a worker thread (stopped by sqlite3_interrupt) and in
// a child process (the fallback), against raw
// better-sqlite3 in the host process; the bare round trips each mechanism pays on every
// statement; and what a time-cap stop costs (the answer's delay past the cap, the next statement).
import { fork, spawn } from 'node:child_process';
import { MessageChannel, Worker } from 'node:worker_threads';
import {
  awaitReply,
  createCallChannelBuffers,
  openCallChannel,
  postCall,
  readReply,
  waitForReply,
} from '@trust/core/node';
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

/**
 * A child that echoes each frame over stdin/stdout with a blocking write, as the SQL process
 * answers: the hop alone.
 */
function startPipeEcho(dir) {
  const file = join(dir, 'echo-pipe.cjs');
  writeFileSync(
    file,
    `${frame}\n${reader}\nconst { writeSync } = require('fs');\n` +
      "process.stdin.on('data', reader((m) => { const o = frame(m); let off = 0; " +
      'while (off < o.length) off += writeSync(1, o, off); }));\n' +
      "process.stdin.on('end', () => process.exit(0));\n",
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

/**
 * A worker thread that echoes each message over core's shared-memory call channel as the SQL
 * worker answers (JSON frames; the host waits 1 ms synchronously, then asynchronously): the
 * thread hop alone.
 */
function startSabEcho() {
  const buffers = createCallChannelBuffers(1 << 20);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL('../lib/call-echo-worker.mjs', import.meta.url), {
    workerData: { buffers, port: port2 },
    transferList: [port2],
  });
  const ch = openCallChannel(buffers, { overflow: port1 });
  return {
    async ping(m) {
      postCall(ch, m, 'json');
      if (!waitForReply(ch, { syncWaitMs: 1 })) await awaitReply(ch, () => true);
      return readReply(ch);
    },
    close: async () => {
      await worker.terminate();
      port1.close();
    },
  };
}

export default async function run({ log }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-sql-'));
  const adf = createAdf(join(dir, 'a.adf'));
  const echo = startPipeEcho(dir);
  const ipcEcho = startIpcEcho(dir);
  const sabEcho = startSabEcho();
  const guard = createSqlGuard(adf, { mechanism: 'thread' });
  const workerGuard = createSqlGuard(adf, { mechanism: 'thread', fastLane: false });
  const procGuard = createSqlGuard(adf, { mechanism: 'process' });
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
      await workerGuard.runQuery(sql, [10, 20]);
      await procGuard.runQuery(sql, [10, 20]);
      await sabEcho.ping(reply);
      raw.prepare(sql).all(10, 20);
      await echo.ping(reply);
      await ipcEcho.ping(reply);
    }
    const N = 4000;
    const s = await sampleInterleaved(
      {
        guarded: () => guard.runQuery(sql, [10, 20]),
        workerOnly: () => workerGuard.runQuery(sql, [10, 20]),
        procGuarded: () => procGuard.runQuery(sql, [10, 20]),
        sabHop: () => sabEcho.ping(reply),
        rawEach: () => raw.prepare(sql).all(10, 20),
        rawCached: () => rawPrepared.all(10, 20),
        hop: () => echo.ping(reply),
        ipcHop: () => ipcEcho.ping(reply),
        check: () => guard.checkQuery(sql, [10, 20]),
      },
      N,
    );
    const lanes = guard.queryStats();
    log(
      `db_query answered by the fast lane ${lanes.fastLane}, by the worker ${lanes.worker}; ` +
        `p50 ${percentile(s.guarded, 50)} ns (default), ${percentile(s.workerOnly, 50)} ns (worker only), ` +
        `${percentile(s.procGuarded, 50)} ns (process); ` +
        `hops with an 11-row reply p50: shared memory ${percentile(s.sabHop, 50)} ns, ` +
        `pipe ${percentile(s.hop, 50)} ns, Node IPC ${percentile(s.ipcHop, 50)} ns`,
    );

    // A statement that never yields a row, capped at 200 ms: how late the SQL_TIMEOUT answer is,
    // and what the next statement pays (the same worker after an interrupt; a fresh process after a kill).
    const stops = {};
    for (const mechanism of ['thread', 'process']) {
      const capped = createSqlGuard(adf, { timeoutMs: 200, mechanism });
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
      stops[mechanism] = { late, respawn };
    }
    // A statement promoted to the fast lane (cheap parameters), then run with costly ones: how
    // long the host's thread is held before the watchdog stops it there (its budget: 1 ms) and the
    // worker takes over.
    const held = [];
    const laneGuard = createSqlGuard(adf, { timeoutMs: 2000, mechanism: 'thread' });
    const costly = 'select count(*) from local_items a, local_items b where a.id <= ?';
    for (let i = 0; i < 5; i++) {
      const before = laneGuard.queryStats().fastLane;
      for (let k = 0; k < 50 && laneGuard.queryStats().fastLane === before; k++) await laneGuard.runQuery(costly, [1]);
      if (laneGuard.queryStats().fastLane === before) throw new Error('the costly statement was never promoted');
      const t0 = performance.now();
      const answer = laneGuard.runQuery(costly, [1000]);
      held.push(Math.round((performance.now() - t0) * 1e6));
      await answer;
    }
    await laneGuard.close();
    held.sort((a, b) => a - b);
    raw.close();
    return [
      {
        measure: 'fast lane: host thread held by a costly statement (p50 of 5)',
        unit: 'ns',
        ours: percentile(held, 50),
        baseline: 1e6,
        baselineName: 'the lane budget (1 ms)',
        better: 'lower',
      },
      {
        measure: 'db_query 11 rows (guarded, default: fast lane once the worker answered)',
        unit: 'ns/query',
        ours: percentile(s.guarded, 50),
        baseline: percentile(s.rawEach, 50),
        baselineName: 'better-sqlite3 prepare+all in-process',
        better: 'lower',
        target: { ratio: 2.5 },
      },
      {
        measure: 'db_query 11 rows (guarded, worker round trip: fastLane false)',
        unit: 'ns/query',
        ours: percentile(s.workerOnly, 50),
        baseline: percentile(s.rawEach, 50),
        baselineName: 'better-sqlite3 prepare+all in-process',
        better: 'lower',
      },
      {
        measure: 'db_query 11 rows (guarded, SQL process: the fallback)',
        unit: 'ns/query',
        ours: percentile(s.procGuarded, 50),
        baseline: percentile(s.rawEach, 50),
        baselineName: 'better-sqlite3 prepare+all in-process',
        better: 'lower',
      },
      {
        measure: 'db_query 11 rows (default) vs cached stmt',
        unit: 'ns/query',
        ours: percentile(s.guarded, 50),
        baseline: percentile(s.rawCached, 50),
        baselineName: 'better-sqlite3 cached stmt.all',
        better: 'lower',
      },
      {
        measure: 'thread round trip alone (shared memory, 11-row reply)',
        unit: 'ns/hop',
        ours: percentile(s.sabHop, 50),
        baseline: percentile(s.rawEach, 50),
        baselineName: 'better-sqlite3 prepare+all in-process',
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
        measure: 'process round trip over Node IPC (older channel)',
        unit: 'ns/hop',
        ours: percentile(s.ipcHop, 50),
        baseline: percentile(s.rawEach, 50),
        baselineName: 'better-sqlite3 prepare+all in-process',
        better: 'lower',
      },
      {
        measure: 'db_query check only (thread, cached verdict)',
        unit: 'ns/check',
        ours: percentile(s.check, 50),
        baseline: percentile(s.sabHop, 50),
        baselineName: 'bare shared-memory hop',
        better: 'lower',
      },
      ...['thread', 'process'].flatMap((m) => [
        {
          measure: `SQL_TIMEOUT answer past a 200 ms cap (${m === 'thread' ? 'interrupt' : 'kill'}, p50 of 5)`,
          unit: 'ns',
          ours: percentile(stops[m].late, 50),
          baseline: 200e6,
          baselineName: 'the cap itself',
          better: 'lower',
        },
        {
          measure: `first statement after a stop (${m === 'thread' ? 'same worker' : 'fresh process'}, p50 of 5)`,
          unit: 'ns',
          ours: percentile(stops[m].respawn, 50),
          baseline: percentile(m === 'thread' ? s.guarded : s.procGuarded, 50),
          baselineName: 'warm db_query',
          better: 'lower',
        },
      ]),
    ];
  } finally {
    echo.close();
    ipcEcho.close();
    await sabEcho.close();
    await guard.close();
    await workerGuard.close();
    await procGuard.close();
    adf.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
