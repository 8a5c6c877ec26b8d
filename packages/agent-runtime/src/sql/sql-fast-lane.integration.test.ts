import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdf, type AdfFile } from '../adf/adf-file.js';
import { createSqlGuard, type SqlGuard } from './sql-guard.js';

// The host-thread fast lane of db_query (sql-fast-lane.ts, `sqlite3_trustlane_init`): a statement
// runs there only after the worker judged and answered it, it is stopped by a watchdog thread at
// 1 ms, and whatever it cannot finish the worker answers. Real SQLite, the real compiled library.
// Bounds on the host's thread are generous "does not stall" ones.

/** Runs `sql` until the fast lane answers it (it is promoted after a quick answer of the worker). */
async function promote(guard: SqlGuard, sql: string, params: unknown[] = []): Promise<void> {
  const before = guard.queryStats().fastLane;
  for (let i = 0; i < 50 && guard.queryStats().fastLane === before; i++) await guard.runQuery(sql, params);
  expect(guard.queryStats().fastLane).toBeGreaterThan(before);
}

/** How long `start()` holds the host's thread before it returns its promise, and that promise. */
function held<T>(start: () => Promise<T>): { ms: number; answer: Promise<T> } {
  const t0 = performance.now();
  const answer = start();
  return { ms: performance.now() - t0, answer };
}

describe('db_query fast lane', () => {
  let dir: string;
  let adf: AdfFile;
  let guard: SqlGuard;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sql-lane-'));
    adf = createAdf(join(dir, 'a.adf'));
    adf.db.exec(`
      CREATE TABLE local_big (x INTEGER, s TEXT);
      WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000)
        INSERT INTO local_big SELECT i, 'row' || i FROM c;
      CREATE TABLE local_text (id INTEGER PRIMARY KEY, t TEXT);
      INSERT INTO local_text VALUES (1, 'short'), (2, printf('%.*c', 20000, 'x'));
    `);
    guard = createSqlGuard(adf, { mechanism: 'thread', timeoutMs: 1_500 });
    await guard.runQuery('select 1');
  });
  afterAll(async () => {
    await guard.close();
    adf.close();
  });

  it('answers a statement the worker answered, with the same rows, columns and caps', async () => {
    const sql = 'select x, s from local_big where x between ? and ? order by x';
    const fromWorker = await guard.runQuery(sql, [10, 20]);
    await promote(guard, sql, [10, 20]);
    const lane = guard.queryStats().fastLane;
    expect(await guard.runQuery(sql, [10, 20])).toEqual(fromWorker);
    expect(await guard.runQuery(sql, [30, 31])).toEqual({
      columns: ['x', 's'],
      rows: [
        { x: 30, s: 'row30' },
        { x: 31, s: 'row31' },
      ],
      truncated: false,
    });
    expect(guard.queryStats().fastLane).toBe(lane + 2);

    const caps = { mechanism: 'thread', maxRows: 3, maxResultBytes: 40 } as const;
    const capped = createSqlGuard(adf, caps);
    const reference = createSqlGuard(adf, { ...caps, fastLane: false });
    try {
      for (const [q, params] of [
        [sql, [1, 100]],
        ['select x from local_big', []],
      ] as const) {
        await promote(capped, q, [...params]);
        const lane = await capped.runQuery(q, [...params]);
        expect(lane).toEqual(await reference.runQuery(q, [...params]));
        expect(lane.truncated).toBe(true);
      }
      expect(reference.queryStats().fastLane).toBe(0);
    } finally {
      await capped.close();
      await reference.close();
    }
  });

  it('stops a promoted statement that runs long and lets the worker answer it', async () => {
    const sql = 'select count(*) as n from local_big a, local_big b, local_big c where a.x <= ?';
    await promote(guard, sql, [0]);
    const worker = guard.queryStats().worker;
    // 3000 × 3000 × 3000 rows: without the watchdog the host's thread would count for minutes.
    const { ms, answer } = held(() => guard.runQuery(sql, [3000]));
    expect(ms).toBeLessThan(250);
    await expect(answer).rejects.toHaveTrustCode('SQL_TIMEOUT');
    expect(guard.queryStats().worker).toBe(worker + 1);
    // Demoted: the next run goes to the worker first, and returns to the lane only after a quick answer.
    const { ms: quick } = held(() => guard.runQuery(sql, [0]));
    expect(quick).toBeLessThan(250);
    expect(guard.queryStats().worker).toBe(worker + 2);
    await promote(guard, sql, [0]);
  });

  it('leaves a value over 8 KiB to the worker, which returns it whole', async () => {
    const sql = 'select t from local_text where id = ?';
    await promote(guard, sql, [1]);
    const worker = guard.queryStats().worker;
    const r = await guard.runQuery(sql, [2]);
    expect((r.rows[0]!.t as string).length).toBe(20000);
    expect(guard.queryStats().worker).toBe(worker + 1);
  });

  it('never answers at another schema version than the one the worker judged', async () => {
    const sql = 'select count(*) as n from local_text';
    await promote(guard, sql);
    await guard.runExecute('create table local_later (a)');
    const worker = guard.queryStats().worker;
    expect((await guard.runQuery(sql)).rows).toEqual([{ n: 2 }]);
    expect(guard.queryStats().worker).toBe(worker + 1);
  });

  it('keeps the order of calls: a query asked after a write waits for it', async () => {
    const sql = 'select count(*) as n from local_text';
    await promote(guard, sql);
    const write = guard.runExecute("insert into local_text (t) values ('new')");
    const read = guard.runQuery(sql);
    await write;
    expect((await read).rows).toEqual([{ n: 3 }]);
  });

  it('never runs a statement the worker denied', async () => {
    const before = guard.queryStats();
    for (let i = 0; i < 3; i++)
      await expect(guard.runQuery('select * from adf_identity')).rejects.toHaveTrustCode('SQL_TABLE_DENIED');
    expect(guard.queryStats()).toEqual({ fastLane: before.fastLane, worker: before.worker + 3 });
  });

  it('is off with fastLane: false and under the process mechanism', async () => {
    for (const options of [{ mechanism: 'thread', fastLane: false }, { mechanism: 'process' }] as const) {
      const g = createSqlGuard(adf, options);
      try {
        for (let i = 0; i < 5; i++) await g.runQuery('select 1');
        expect(g.queryStats()).toEqual({ fastLane: 0, worker: 5 });
      } finally {
        await g.close();
      }
    }
  });
});
