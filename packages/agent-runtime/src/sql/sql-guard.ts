import type { Decision } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { ExecuteResult, QueryResult } from './sql-engine.js';
import { toQueryResult, type WireQueryResult } from './sql-host-protocol.js';
import { createSelectedSqlHost, type SelectedSqlHost, type SqlMechanism } from './sql-host-select.js';
import { openSqlFastLane, type SqlFastLane } from './sql-fast-lane.js';
import type { TableProtection } from './sql-policy.js';
import { sqlGuardOptionsSchema } from '../options/sql-guard-options.js';
import { checkOptions } from '../options/strict-options.js';

export type { ExecuteResult, QueryResult } from './sql-engine.js';

export interface SqlGuardOptions {
  /** Row cap for queries; defaults to `limits.max_sql_rows`. */
  readonly maxRows?: number;
  /** Byte cap for one query result, counted while rows are produced; defaults to `limits.max_sql_result_bytes`. */
  readonly maxResultBytes?: number;
  /** Wall-clock cap for db_query; defaults to `limits.sql_timeout_ms`. */
  readonly timeoutMs?: number;
  /** Wall-clock cap for db_execute; defaults to `limits.sql_execute_timeout_ms`. */
  readonly executeTimeoutMs?: number;
  /** How much one db_execute may grow the file; defaults to `limits.max_sql_growth_bytes`. */
  readonly maxGrowthBytes?: number;
  /** Wall-clock cap for a check (compiling only); default 5 000 ms. */
  readonly checkTimeoutMs?: number;
  /**
   * Where agent SQL runs: `'auto'` (default) a worker thread per agent, stopped by
   * `sqlite3_interrupt`, or a child process per agent when the interrupt library cannot be built
   * here; `'thread'` or `'process'` force one (`'thread'` then fails with `SQL_HOST_FAILED`).
   */
  readonly mechanism?: SqlMechanism;
  /** Cache directory for the compiled interrupt library; default `<launcher cache>/sql-interrupt`. */
  readonly nativeCacheDir?: string;
  /** C compiler for the interrupt library; default `cc`. */
  readonly cc?: string;
  /**
   * Tuning of the thread mechanism's channel (see the package README): how long the host waits
   * for an answer on its own thread (ms, default 1, never more than 2) and how long each side
   * busy-polls before it sleeps (µs).
   */
  readonly channel?: {
    readonly syncWaitMs?: number;
    readonly hostSpinMicros?: number;
    readonly workerSpinMicros?: number;
  };
  /**
   * Whether a db_query statement the worker already judged and answered may run again on
   * the bounded host-thread fast lane (thread mechanism only; see the package README); default true.
   * `false` keeps every statement in the worker.
   */
  readonly fastLane?: boolean;
}

/** Where this guard's queries ran (diagnostics, tests and benchmarks). */
export interface SqlQueryStats {
  /** Answered on the host-thread fast lane. */
  readonly fastLane: number;
  /** Answered by the SQL worker (or process). */
  readonly worker: number;
}

/** SQL access control for agent SQL, decided from the compiled statement off the host's thread. */
export interface SqlGuard {
  checkQuery(sql: string, params?: unknown[]): Promise<Decision>;
  checkExecute(sql: string, options?: { authorized?: boolean; params?: unknown[] }): Promise<Decision>;
  runQuery(sql: string, params?: unknown[]): Promise<QueryResult>;
  runExecute(sql: string, options?: { authorized?: boolean; params?: unknown[] }): Promise<ExecuteResult>;
  /** The SQL process id while one runs (process mechanism; diagnostics and tests). */
  hostPid(): number | undefined;
  /** The SQL worker's thread id while one runs (thread mechanism; diagnostics and tests). */
  hostThreadId(): number | undefined;
  /** The mechanism in use, once the first statement decided it. */
  mechanism(): 'thread' | 'process' | undefined;
  /** How many queries each lane answered so far. */
  queryStats(): SqlQueryStats;
  close(): Promise<void>;
}

/**
 * Creates the guard. Agent SQL is judged and first run off the host's thread and connection:
 * each agent gets one SQL worker thread (started on first use; a child process where the
 * interrupt library cannot be built) with its own read-only `query_only` connection for db_query
 * and a read-write one for db_execute, both `trusted_schema=OFF`. There every statement is compiled and judged by
 * what its program touches before it runs. The host enforces each statement's wall-clock cap by
 * interrupting it from its own thread (`sqlite3_interrupt`; a worker that does not answer is
 * terminated; a process is killed): `SQL_TIMEOUT`. The worker enforces the row and byte caps
 * while rows are produced, and the growth cap with `max_page_count`.
 *
 * A statement the worker has judged and answered may then run on the host's thread, on a fast
 * lane bounded by SQLite's own limits and a watchdog thread (about 1 ms of work per statement, 8 KiB per
 * value; sql-fast-lane.ts): anything it cannot finish there is answered by the worker.
 *
 * @example
 * const sql = createSqlGuard(adf);
 * await sql.checkQuery('select * from [adf_identity]'); // { allow: false, code: 'SQL_TABLE_DENIED', … }
 */
export function createSqlGuard(adf: AdfFile, options: SqlGuardOptions = {}): SqlGuard {
  checkOptions('createSqlGuard', sqlGuardOptionsSchema, options);
  const host: SelectedSqlHost = createSelectedSqlHost({
    path: adf.path,
    ...(options.mechanism ? { mechanism: options.mechanism } : {}),
    ...(options.channel ? { thread: options.channel } : {}),
    build: {
      ...(options.nativeCacheDir ? { cacheDir: options.nativeCacheDir } : {}),
      ...(options.cc ? { cc: options.cc } : {}),
    },
  });
  // The host's own writes to this file preempt a statement of ours that holds its write lock, so
  // the host's event loop never waits on a time cap the agent chose (see adf/write-arbiter.ts).
  const unregister = adf.writers.register(host);
  const limits = () => adf.config().limits;
  const protections = () => adf.config().security.table_protections as Readonly<Record<string, TableProtection>>;
  const checkTimeout = options.checkTimeoutMs ?? 5_000;
  let lane: SqlFastLane | null | undefined = options.fastLane === false ? null : undefined;
  let inFlight = 0;
  const stats = { fastLane: 0, worker: 0 };
  // The lane opens once the worker runs (it needs the worker's interrupt library); never without it.
  function fastLane(): SqlFastLane | undefined {
    if (lane === undefined) {
      const lib = host.library();
      if (!lib) return undefined;
      try {
        lane = openSqlFastLane(adf.path, lib);
      } catch {
        lane = null; // every query stays in the worker
      }
    }
    return lane ?? undefined;
  }
  const call = (request: Parameters<SelectedSqlHost['call']>[0], timeoutMs: number) => {
    inFlight++;
    return host.call(request, timeoutMs).finally(() => {
      inFlight--;
    });
  };
  return {
    checkQuery: (sql, params = []) =>
      call(
        { kind: 'check', mode: 'query', sql, params, protections: {}, authorized: false },
        checkTimeout,
      ) as Promise<Decision>,
    checkExecute: (sql, o = {}) =>
      call(
        {
          kind: 'check',
          mode: 'execute',
          sql,
          params: o.params ?? [],
          protections: protections(),
          authorized: o.authorized === true,
        },
        checkTimeout,
      ) as Promise<Decision>,
    runQuery(sql, params = []) {
      const l = limits();
      const caps = {
        maxRows: options.maxRows ?? l.max_sql_rows,
        maxBytes: options.maxResultBytes ?? l.max_sql_result_bytes,
      };
      // Only while nothing of this agent's is in the worker: answers keep the order they were asked in.
      const fast = inFlight === 0 ? fastLane() : undefined;
      const rows = fast?.run(sql, params, caps);
      if (rows) {
        stats.fastLane++;
        return Promise.resolve(toQueryResult(rows));
      }
      const candidate = fast?.candidate(sql);
      stats.worker++;
      return call({ kind: 'query', sql, params, ...caps }, options.timeoutMs ?? l.sql_timeout_ms).then((w) => {
        if (candidate) fast?.promote(candidate);
        return toQueryResult(w as WireQueryResult);
      });
    },
    runExecute(sql, o = {}) {
      const l = limits();
      return call(
        {
          kind: 'execute',
          sql,
          params: o.params ?? [],
          protections: protections(),
          authorized: o.authorized === true,
          maxGrowthBytes: options.maxGrowthBytes ?? l.max_sql_growth_bytes,
        },
        options.executeTimeoutMs ?? l.sql_execute_timeout_ms,
      ) as Promise<ExecuteResult>;
    },
    hostPid: () => host.pid(),
    hostThreadId: () => host.threadId(),
    mechanism: () => host.mechanism(),
    queryStats: () => ({ ...stats }),
    close: () => {
      unregister();
      lane?.close();
      lane = null;
      return host.close();
    },
  };
}
