import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdf, type AdfFile } from '../adf/adf-file.js';
import { createSqlGuard, type SqlGuard } from './sql-guard.js';

// Regression: host writes to an agent file used to wait on the main thread (busy_timeout 5 s)
// while the agent's db_execute held the file's write lock for up to its own cap (30 s max).
// Generous "does not stall" bound, as the issue asks; the old code stalled ~5 s and then failed.
const STALL_BOUND_MS = 250;

/** Resolves once some connection other than `probe` holds the file's write lock. */
async function untilWriteLockHeld(probe: Database.Database): Promise<void> {
  for (let i = 0; i < 500; i++) {
    try {
      probe.exec('BEGIN IMMEDIATE');
      probe.exec('ROLLBACK');
    } catch (e) {
      if (String((e as { code?: string }).code).startsWith('SQLITE_BUSY')) return;
      throw e;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the agent statement never took the write lock');
}

describe.each(['thread', 'process'] as const)('agent SQL in a %s', (mechanism) => {
  let dir: string;
  let adf: AdfFile;
  let guard: SqlGuard;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-write-lock-'));
    adf = createAdf(join(dir, 'a.adf'));
    adf.db.exec(`
      CREATE TABLE local_big (x INTEGER);
      WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000)
        INSERT INTO local_big SELECT i FROM c;
      CREATE TABLE local_sink (n INTEGER);
    `);
    // The agent may set its execute cap up to 30 s: far longer than any wait the host can afford.
    guard = createSqlGuard(adf, { mechanism, executeTimeoutMs: 20_000 });
    await guard.runQuery('select 1');
  });
  afterAll(async () => {
    await guard.close();
    adf.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('host writes while an agent db_execute holds the write lock', () => {
    it('the host writes its log and inbox rows without stalling its event loop; ' +
      'the agent statement is preempted, nothing of it committed', async () => {
      const threadId = guard.hostThreadId();
      const probe = new Database(adf.path);
      probe.pragma('busy_timeout = 0');
      // Holds the write lock for seconds: an INSERT … SELECT over a 3000³ cross join.
      const agentWrite = guard.runExecute(
        'INSERT INTO local_sink SELECT count(*) FROM local_big a, local_big b, local_big c',
      );
      const settled = agentWrite.then(
        () => ({ ok: true as const }),
        (e: { code?: string }) => ({ ok: false as const, code: e.code }),
      );
      await untilWriteLockHeld(probe);
      probe.close();

      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      await new Promise((r) => setTimeout(r, 50));
      const t0 = performance.now();
      const logId = adf.logs.add({ level: 'info', message: 'host log while the agent writes', origin: 'test' });
      const mail = adf.inbox.insert({ content: 'hello while the agent writes', from: 'did:key:peer' });
      const audit = adf.audit.record({
        principal: { kind: 'llm', id: 'loop' },
        action: 'test.host_write',
        target: 'local_sink',
        decision: 'allow',
      });
      const syncMs = performance.now() - t0;
      await new Promise((r) => setTimeout(r, 50));
      h.disable();
      const maxDelayMs = h.max / 1e6;

      expect(syncMs).toBeLessThan(STALL_BOUND_MS);
      expect(maxDelayMs).toBeLessThan(STALL_BOUND_MS);
      expect(adf.logs.list().some((l) => l.id === logId && l.message === 'host log while the agent writes')).toBe(true);
      expect(adf.inbox.get(mail.id)?.content).toBe('hello while the agent writes');
      expect(adf.audit.list().at(-1)?.hash).toBe(audit.hash);

      const r = await settled;
      expect(r).toEqual({ ok: false, code: expect.toBeTrustCode('SQL_PREEMPTED') });
      expect(adf.db.prepare('SELECT count(*) FROM local_sink').pluck().get()).toBe(0);
      expect(adf.db.pragma('integrity_check', { simple: true })).toBe('ok');
      // The agent's next statement runs: on the same worker (interrupted, not terminated), or on a fresh process.
      await expect(guard.runExecute('INSERT INTO local_sink VALUES (1)')).resolves.toMatchObject({ changes: 1 });
      if (mechanism === 'thread') {
        expect(threadId).toBeTypeOf('number');
        expect(guard.hostThreadId()).toBe(threadId);
      }
    }, 30_000);

    it('a short agent write is not preempted: the host waits for it within its small grace', async () => {
      const before = adf.db.prepare('SELECT count(*) FROM local_sink').pluck().get() as number;
      const writes = Array.from({ length: 20 }, (_, i) =>
        guard.runExecute('INSERT INTO local_sink VALUES (?)', { params: [i] }),
      );
      for (let i = 0; i < 20; i++) {
        adf.logs.add({ level: 'info', message: `host ${i}` });
        await new Promise((r) => setImmediate(r));
      }
      const results = await Promise.allSettled(writes);
      expect(results.filter((x) => x.status === 'rejected')).toEqual([]);
      expect(adf.db.prepare('SELECT count(*) FROM local_sink').pluck().get()).toBe(before + 20);
    }, 30_000);
  });
});
