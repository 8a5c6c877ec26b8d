import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdf, type AdfFile } from '../adf/adf-file.js';
import { AGENT_ENTRY, HOST_ENTRY, loadEntry } from './sql-extension.js';
import { createSqlGuard } from './sql-guard.js';
import { ensureSqlInterruptLibrary, openSqlInterrupter, type SqlInterrupter } from './sql-interrupt.js';
import { analyzeStatement, buildRootMap } from './statement-analysis.js';
import { createSqlThreadHost } from './sql-thread-host.js';

// Agent SQL in a worker thread, stopped by sqlite3_interrupt from the host's thread (the interrupt
// library, compiled here with the system C compiler: a missing compiler FAILS these tests).
// Bounds are generous "does not stall" ones.
const CAP_MS = 300;
const MARGIN_MS = 1_500;

let dir: string;
let cache: string;
let lib: string;
let adf: AdfFile;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sql-interrupt-'));
  cache = join(dir, 'cache');
  lib = await ensureSqlInterruptLibrary({ cacheDir: cache });
  adf = createAdf(join(dir, 'a.adf'));
  adf.db.exec(`
    CREATE TABLE local_big (x INTEGER);
    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000)
      INSERT INTO local_big SELECT i FROM c;
    CREATE TABLE local_sink (n INTEGER);
  `);
}, 60_000);
afterAll(() => {
  adf.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a statement that never yields a row is interrupted, not killed', () => {
  it('a sync wait set past the 2 ms bound is capped: a long statement never holds the event loop', async () => {
    const g = createSqlGuard(adf, {
      mechanism: 'thread',
      nativeCacheDir: cache,
      timeoutMs: CAP_MS,
      channel: { syncWaitMs: 3_000 },
    });
    try {
      await g.runQuery('select 1');
      let last = performance.now();
      let maxGap = 0;
      const tick = setInterval(() => {
        const n = performance.now();
        maxGap = Math.max(maxGap, n - last);
        last = n;
      }, 20);
      const r = await g.runQuery('select count(*) from local_big a, local_big b, local_big c').catch((e: unknown) => e);
      clearInterval(tick);
      expect(r).toHaveTrustCode('SQL_TIMEOUT');
      expect(maxGap).toBeLessThan(1_000);
    } finally {
      await g.close();
    }
  });

  it(
    'a cross-join aggregate ends with SQL_TIMEOUT within cap + margin while the host answers, ' +
      'and its worker is reused',
    async () => {
      const g = createSqlGuard(adf, { mechanism: 'thread', nativeCacheDir: cache, timeoutMs: CAP_MS });
      try {
        await g.runQuery('select 1');
        const threadId = g.hostThreadId();
        const h = monitorEventLoopDelay({ resolution: 10 });
        h.enable();
        const t0 = performance.now();
        const err = await g.runQuery('select count(*) from local_big a, local_big b, local_big c').catch((e) => e);
        const elapsed = performance.now() - t0;
        h.disable();
        expect(err).toHaveTrustCode('SQL_TIMEOUT');
        expect(String(err.message)).toMatch(/SQLite interrupted it/);
        expect(elapsed).toBeLessThan(CAP_MS + MARGIN_MS);
        expect(h.max / 1e6).toBeLessThan(250);
        expect(g.hostThreadId()).toBe(threadId);
        expect((await g.runQuery('select count(*) as n from local_big')).rows).toEqual([{ n: 3000 }]);
      } finally {
        await g.close();
      }
    },
  );

  it('a worker that does not answer the interrupt is terminated at the margin and never reused', async () => {
    // An interrupter that reaches nothing: the statement (a few seconds) runs on. The read is answered
    // at the margin; the thread ends once SQLite returns to JavaScript, and is replaced.
    const deaf: SqlInterrupter = { interrupt: () => 0, arm: () => undefined, close: () => undefined };
    const host = createSqlThreadHost({ path: adf.path, lib, interrupter: deaf, stopMarginMs: 200 });
    try {
      await host.call({ kind: 'query', sql: 'select 1', params: [], maxRows: 10, maxBytes: 1e6 }, 5_000);
      const before = host.threadId();
      const t0 = performance.now();
      await expect(
        host.call(
          {
            kind: 'query',
            sql: 'select count(*) from local_big a, local_big b, (select x from local_big limit 12) c',
            params: [],
            maxRows: 10,
            maxBytes: 1e6,
          },
          CAP_MS,
        ),
      ).rejects.toHaveTrustCode('SQL_TIMEOUT');
      expect(performance.now() - t0).toBeLessThan(CAP_MS + 200 + MARGIN_MS);
      await expect(
        host.call({ kind: 'query', sql: 'select 2 as v', params: [], maxRows: 10, maxBytes: 1e6 }, 5_000),
      ).resolves.toMatchObject({ rows: [[2]] });
      expect(host.threadId()).toBeTypeOf('number');
      expect(host.threadId()).not.toBe(before);
    } finally {
      await host.close();
    }
  }, 20_000);
});

describe('host writes preempt an agent write by interrupting it', () => {
  it('the host write goes through at once; the agent write gets SQL_PREEMPTED, ' +
    'nothing committed, the worker stays', async () => {
    const g = createSqlGuard(adf, { mechanism: 'thread', nativeCacheDir: cache, executeTimeoutMs: 20_000 });
    try {
      await g.runQuery('select 1');
      const threadId = g.hostThreadId();
      const write = g
        .runExecute('INSERT INTO local_sink SELECT count(*) FROM local_big a, local_big b, local_big c')
        .catch((e) => e);
      while (!adf.writers || !g.mechanism()) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 200)); // the statement is running and holds the write lock
      const t0 = performance.now();
      adf.logs.add({ level: 'info', message: 'host write during an agent write' });
      const hostMs = performance.now() - t0;
      const err = await write;
      expect(err).toHaveTrustCode('SQL_PREEMPTED');
      expect(String(err.message)).toMatch(/SQLite interrupted it/);
      expect(hostMs).toBeLessThan(500);
      expect(adf.db.prepare('SELECT count(*) FROM local_sink').pluck().get()).toBe(0);
      expect(adf.db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(g.hostThreadId()).toBe(threadId);
      await expect(g.runExecute('INSERT INTO local_sink VALUES (1)')).resolves.toMatchObject({ changes: 1 });
      adf.db.exec('DELETE FROM local_sink');
    } finally {
      await g.close();
    }
  }, 30_000);
});

describe('agent SQL cannot load extensions or reach the host functions', () => {
  it('load_extension() from agent SQL is refused by the guard and by SQLite itself', async () => {
    const g = createSqlGuard(adf, { mechanism: 'thread', nativeCacheDir: cache });
    try {
      await expect(g.runQuery(`select load_extension('${lib}', '${HOST_ENTRY}')`)).rejects.toHaveTrustCode(
        'SQL_FUNCTION_DENIED',
      );
      await expect(g.runQuery('select trust_interrupt(1)')).rejects.toHaveTrustCode('SQL_INVALID');
    } finally {
      await g.close();
    }
    // Below the guard: an agent connection (extension loading enabled for the C API only).
    const agent = new Database(adf.path, { readonly: true });
    try {
      loadEntry(agent, lib, AGENT_ENTRY);
      expect(() => agent.prepare(`select load_extension('${lib}', '${HOST_ENTRY}')`).get()).toThrow(/not authorized/);
      expect(() => agent.prepare('select trust_interrupt(1)').get()).toThrow(/no such function/);
    } finally {
      agent.close();
    }
  });

  it('a trust_* function is refused by the statement analysis should one ever be visible', () => {
    const host = new Database(':memory:');
    try {
      loadEntry(host, lib, HOST_ENTRY);
      const a = analyzeStatement(host, 'select trust_arm(1)', buildRootMap(host));
      expect(a.hard).toContainEqual(expect.objectContaining({ code: expect.toBeTrustCode('SQL_FUNCTION_DENIED') }));
    } finally {
      host.close();
    }
  });

  it('a host-side interrupt reaches only the connections of the thread it names', () => {
    const i = openSqlInterrupter(lib);
    try {
      expect(i.interrupt(2 ** 30)).toBe(0);
    } finally {
      i.close();
    }
  });
});

describe('fails closed to the process mechanism', () => {
  it('without a C compiler, auto runs agent SQL in a process; thread alone fails with SQL_HOST_FAILED', async () => {
    const empty = join(dir, 'no-cc-cache');
    const auto = createSqlGuard(adf, { nativeCacheDir: empty, cc: join(dir, 'no-such-cc') });
    const thread = createSqlGuard(adf, { mechanism: 'thread', nativeCacheDir: empty, cc: join(dir, 'no-such-cc') });
    try {
      expect((await auto.runQuery('select 7 as v')).rows).toEqual([{ v: 7 }]);
      expect(auto.mechanism()).toBe('process');
      expect(auto.hostPid()).toBeTypeOf('number');
      await expect(thread.runQuery('select 1')).rejects.toHaveTrustCode('SQL_HOST_FAILED');
    } finally {
      await auto.close();
      await thread.close();
    }
  }, 30_000);

  it('a library that no longer matches its recorded hash is never loaded', async () => {
    const own = join(dir, 'tamper-cache');
    const path = await ensureSqlInterruptLibrary({ cacheDir: own });
    writeFileSync(path, 'not the library', { mode: 0o700 });
    await expect(ensureSqlInterruptLibrary({ cacheDir: own })).rejects.toHaveTrustCode('SQL_HOST_FAILED');
    const g = createSqlGuard(adf, { nativeCacheDir: own });
    try {
      expect((await g.runQuery('select 1 as v')).rows).toEqual([{ v: 1 }]);
      expect(g.mechanism()).toBe('process');
    } finally {
      await g.close();
    }
    expect(readdirSync(own).filter((f) => f.endsWith('.so'))).toHaveLength(1);
  }, 30_000);
});
