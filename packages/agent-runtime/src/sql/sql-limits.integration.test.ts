import { mkdtempSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdf, type AdfFile } from '../adf/adf-file.js';
import { createSqlGuard, type SqlGuard } from './sql-guard.js';

// Agent SQL off the host's thread, in both mechanisms (a worker thread stopped by
// sqlite3_interrupt, and the fallback: a child process stopped by SIGKILL): caps that hold even
// when SQLite never returns to JavaScript. The time caps here are small so the suite stays quick;
// bounds are generous "does not stall" ones.
const CAP_MS = 400;
const MARGIN_MS = 1_500;

const integrity = (a: AdfFile) => a.db.pragma('integrity_check', { simple: true });
const fileBytes = (a: AdfFile) =>
  statSync(a.path).size + (existsSync(`${a.path}-wal`) ? statSync(`${a.path}-wal`).size : 0);

const MECHANISMS = ['thread', 'process'] as const;

describe.each(MECHANISMS)('agent SQL in a %s', (mechanism) => {
  let dir: string;
  let adf: AdfFile;
  let other: AdfFile;
  let guard: SqlGuard;
  let otherGuard: SqlGuard;

  /** Runs `work` while a 20 ms timer and another agent's query keep checking that the host answers. */
  async function whileHostAnswers<T>(
    work: Promise<T>,
  ): Promise<{ maxTimerGapMs: number; otherAgentMs: number; settled: PromiseSettledResult<T> }> {
    let last = performance.now();
    let maxGap = 0;
    const tick = setInterval(() => {
      const n = performance.now();
      maxGap = Math.max(maxGap, n - last);
      last = n;
    }, 20);
    await new Promise((r) => setTimeout(r, 100)); // the statement is now running in its SQL worker or process
    const t0 = performance.now();
    await otherGuard.runQuery('select count(*) as n from local_small');
    const otherAgentMs = performance.now() - t0;
    const [settled] = await Promise.allSettled([work]);
    clearInterval(tick);
    return { maxTimerGapMs: maxGap, otherAgentMs, settled: settled as PromiseSettledResult<T> };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sql-limits-'));
    adf = createAdf(join(dir, 'a.adf'));
    adf.db.exec(`
      CREATE TABLE local_big (x INTEGER);
      WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000)
        INSERT INTO local_big SELECT i FROM c;
      CREATE TABLE local_sink (x);
      CREATE TABLE local_blobs (b BLOB);
    `);
    other = createAdf(join(dir, 'b.adf'));
    other.db.exec('CREATE TABLE local_small (x); INSERT INTO local_small VALUES (1), (2)');
    guard = createSqlGuard(adf, {
      mechanism,
      timeoutMs: CAP_MS,
      executeTimeoutMs: CAP_MS,
      maxResultBytes: 2_500_000,
      maxGrowthBytes: 1_000_000,
    });
    otherGuard = createSqlGuard(other, { mechanism });
    // Both are warm: the caps time statements, not start-up.
    await guard.runQuery('select 1');
    await otherGuard.runQuery('select 1');
  });
  afterAll(async () => {
    await guard.close();
    await otherGuard.close();
    adf.close();
    other.close();
  });

  describe('db_query wall-clock cap', () => {
    let killedPid: number | undefined;
    let threadId: number | undefined;
    it(
      'a cross-join aggregate that yields no row ends with SQL_TIMEOUT ' + 'within cap + margin while the host answers',
      async () => {
        expect(guard.mechanism()).toBe(mechanism);
        killedPid = guard.hostPid();
        threadId = guard.hostThreadId();
        expect(mechanism === 'process' ? killedPid : threadId).toBeTypeOf('number');
        const t0 = performance.now();
        const r = await whileHostAnswers(guard.runQuery('select count(*) from local_big a, local_big b, local_big c'));
        const elapsed = performance.now() - t0;
        expect(r.settled).toMatchObject({ status: 'rejected', reason: { code: expect.toBeTrustCode('SQL_TIMEOUT') } });
        expect(elapsed).toBeLessThan(CAP_MS + MARGIN_MS);
        expect(r.otherAgentMs).toBeLessThan(500);
        expect(r.maxTimerGapMs).toBeLessThan(500);
        expect(integrity(adf)).toBe('ok');
      },
    );

    if (mechanism === 'thread')
      it('the worker of the interrupted statement answered and is reused', async () => {
        expect((await guard.runQuery('select count(*) as n from local_big')).rows).toEqual([{ n: 3000 }]);
        expect(guard.hostThreadId()).toBe(threadId);
      });

    if (mechanism === 'process')
      it('the killed SQL process is gone and the next statement runs in a fresh one', async () => {
        expect((await guard.runQuery('select count(*) as n from local_big')).rows).toEqual([{ n: 3000 }]);
        expect(guard.hostPid()).toBeTypeOf('number');
        expect(guard.hostPid()).not.toBe(killedPid);
        expect(() => process.kill(killedPid!, 0)).toThrowError(expect.objectContaining({ code: 'ESRCH' }));
      });

    it('a terminating recursive CTE is allowed', async () => {
      const r = await guard.runQuery(
        'with recursive c(x) as (select 1 union all select x + 1 from c where x < 10000) ' +
          'select count(*) as n, max(x) as m from c',
      );
      expect(r.rows).toEqual([{ n: 10000, m: 10000 }]);
    });

    it('a runaway recursive CTE is stopped at the time cap', async () => {
      const t0 = performance.now();
      await expect(
        guard.runQuery('with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c'),
      ).rejects.toHaveTrustCode('SQL_TIMEOUT');
      expect(performance.now() - t0).toBeLessThan(CAP_MS + MARGIN_MS);
      expect(integrity(adf)).toBe('ok');
    });
  });

  describe('db_query byte cap (counted while rows are produced)', () => {
    it('stops at the first row that would cross the cap and says so', async () => {
      const r = await guard.runQuery('select randomblob(1000000) as b from local_big limit 50');
      expect(r.rows).toHaveLength(2);
      expect(r).toMatchObject({ truncated: true, truncatedBy: 'bytes' });
    });

    it('counts text too', async () => {
      const r = await guard.runQuery("select printf('%.*c', 500000, 'x') as t from local_big limit 50");
      expect(r.rows.length).toBeLessThanOrEqual(2);
      expect(r).toMatchObject({ truncated: true, truncatedBy: 'bytes' });
    });
  });

  describe('db_execute caps', () => {
    it('refuses to grow the file past the growth cap with SQL_GROWTH_LIMIT and rolls back', async () => {
      const before = fileBytes(adf);
      await expect(
        guard.runExecute('insert into local_blobs select randomblob(100000) from local_big limit 200'),
      ).rejects.toHaveTrustCode('SQL_GROWTH_LIMIT');
      expect(adf.db.prepare('select count(*) from local_blobs').pluck().get()).toBe(0);
      expect(integrity(adf)).toBe('ok');
      // Main file plus WAL grew by at most the cap plus a little bookkeeping.
      expect(fileBytes(adf) - before).toBeLessThan(1_000_000 + 512 * 1024);
      // Within the cap the same kind of write is fine.
      await expect(
        guard.runExecute('insert into local_blobs select randomblob(100000) from local_big limit 3'),
      ).resolves.toMatchObject({ changes: 3 });
    });

    it(
      'a write that computes past the time cap is killed while it holds the write lock: ' +
        'nothing committed, lock released',
      async () => {
        const t0 = performance.now();
        const r = await whileHostAnswers(
          guard.runExecute('insert into local_sink select count(*) from local_big a, local_big b, local_big c'),
        );
        expect(r.settled).toMatchObject({ status: 'rejected', reason: { code: expect.toBeTrustCode('SQL_TIMEOUT') } });
        expect(performance.now() - t0).toBeLessThan(CAP_MS + MARGIN_MS);
        expect(r.otherAgentMs).toBeLessThan(500);
        expect(r.maxTimerGapMs).toBeLessThan(500);
        expect(adf.db.prepare('select count(*) from local_sink').pluck().get()).toBe(0);
        expect(integrity(adf)).toBe('ok');
        adf.logs.add({ level: 'info', message: 'the host can still write its own file' });
        await expect(guard.runExecute('insert into local_sink values (1)')).resolves.toMatchObject({ changes: 1 });
      },
    );

    it('a kill in the middle of writing pages (uncommitted WAL frames) leaves a consistent file', async () => {
      const big = createSqlGuard(adf, { mechanism, executeTimeoutMs: 1_000, maxGrowthBytes: 1024 * 1024 * 1024 });
      try {
        await big.runQuery('select 1');
        const rows = adf.db.prepare('select count(*) from local_blobs').pluck().get();
        await expect(
          big.runExecute('insert into local_blobs select randomblob(4000) from local_big a, local_big b'),
        ).rejects.toHaveTrustCode('SQL_TIMEOUT');
        // it was killed while pages were being written
        expect(statSync(`${adf.path}-wal`).size).toBeGreaterThan(1_000_000);
        expect(adf.db.prepare('select count(*) from local_blobs').pluck().get()).toBe(rows);
        expect(integrity(adf)).toBe('ok');
        await expect(big.runExecute("insert into local_blobs values (x'00')")).resolves.toMatchObject({ changes: 1 });
        expect(integrity(adf)).toBe('ok');
      } finally {
        await big.close();
      }
    }, 20_000); // starts two SQL processes and checks integrity twice: slow on a loaded machine, never a stall bound

    it('a runaway recursive insert is stopped by the growth or the time cap, never hangs', async () => {
      await expect(
        guard.runExecute(
          'insert into local_sink with recursive c(x) as (select 1 union all select x + 1 from c) select x from c',
        ),
      ).rejects.toMatchObject({ code: expect.stringMatching(/^SQL_(TIMEOUT|GROWTH_LIMIT)$/) });
      expect(adf.db.prepare('select count(*) from local_sink').pluck().get()).toBe(1);
      expect(integrity(adf)).toBe('ok');
    });

    it(
      'truncates the WAL after a big write ' +
        '(a checkpoint that finds a reader busy is retried after the next write)',
      async () => {
        const big = createSqlGuard(adf, { mechanism, maxGrowthBytes: 64 * 1024 * 1024 });
        const walSize = (): number => statSync(`${adf.path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
        try {
          await big.runExecute('insert into local_blobs select randomblob(500000) from local_big limit 8');
          await big.runQuery('select 1'); // the checkpoint runs after the answer; the next call queues behind it
          // Another connection reading at that moment (e.g. the SQL process that replaced one killed in
          // the test before, opening the file) makes the checkpoint busy: it never waits for readers,
          // and the next write over the threshold tries again. A bounded number of small writes.
          for (let i = 0; i < 20 && walSize() >= 64 * 1024; i++) {
            await big.runExecute("insert into local_blobs values (x'00')");
            await big.runQuery('select 1');
          }
          expect(walSize()).toBeLessThan(64 * 1024);
          expect(integrity(adf)).toBe('ok');
        } finally {
          await big.close();
        }
      },
    );
  });

  describe('the SQL process or worker as a failure domain', () => {
    if (mechanism === 'process')
      it('a process that dies mid-statement gives SQL_HOST_FAILED, and the next statement works', async () => {
        const g = createSqlGuard(adf, { mechanism, timeoutMs: 30_000 });
        try {
          await g.runQuery('select 1');
          const pid = g.hostPid()!;
          const running = g.runQuery('select count(*) from local_big a, local_big b, local_big c');
          setTimeout(() => process.kill(pid, 'SIGKILL'), 100);
          await expect(running).rejects.toHaveTrustCode('SQL_HOST_FAILED');
          expect((await g.runQuery('select 2 as v')).rows).toEqual([{ v: 2 }]);
          expect(integrity(adf)).toBe('ok');
        } finally {
          await g.close();
        }
      }, 20_000); // starts two SQL processes: slow on a loaded machine, never a stall bound

    it('statements queue one at a time per agent; past the queue cap new ones get SQL_BUSY', async () => {
      const g = createSqlGuard(adf, { mechanism });
      try {
        const all = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => g.runQuery('select ? as i', [i])));
        const ok = all.filter((r) => r.status === 'fulfilled');
        expect(ok.length).toBeGreaterThanOrEqual(32);
        expect(
          all
            .filter((r) => r.status === 'rejected')
            .every((r) => (r as PromiseRejectedResult).reason.code === 'SQL_BUSY'),
        ).toBe(true);
        expect(all.some((r) => r.status === 'rejected')).toBe(true);
      } finally {
        await g.close();
      }
    });

    it('after close, calls are refused with SQL_CLOSED and no process or worker remains', async () => {
      const g = createSqlGuard(adf, { mechanism });
      await g.runQuery('select 1');
      const pid = g.hostPid();
      expect(mechanism === 'process' ? pid : g.hostThreadId()).toBeTypeOf('number');
      await g.close();
      await expect(g.runQuery('select 1')).rejects.toHaveTrustCode('SQL_CLOSED');
      expect(g.hostThreadId()).toBeUndefined();
      if (pid !== undefined)
        expect(() => process.kill(pid, 0)).toThrowError(expect.objectContaining({ code: 'ESRCH' }));
    });
  });
});
