import type Database from 'better-sqlite3';
import { TrustError } from '@trust/core';

/**
 * A writer to the same `.adf` file that the host may stop: the agent's SQL worker (or process). The host
 * dispatches every one of its statements, so it knows when one may hold the file's write lock.
 */
export interface PreemptibleWriter {
  /**
   * True from the moment a write statement is sent until its worker or process reports it done
   * (statement and checkpoint).
   */
  mayHoldWriteLock(): boolean;
  /**
   * Stops the writer at once: `sqlite3_interrupt` of its statement, which rolls back and releases
   * the lock (the process fallback: SIGKILL, after which the OS releases it). Its caller gets
   * `SQL_PREEMPTED` unless the statement had already committed and answered.
   */
  preempt(): void;
}

/** Where preemptible writers to one open `.adf` file register (the SQL guard does, per agent). */
export interface AdfWriters {
  /** Registers a writer; returns the function that removes it again. */
  register(writer: PreemptibleWriter): () => void;
}

/** How long a host write waits for the lock before it acts: a short agent statement commits within it. */
export const HOST_WRITE_GRACE_MS = 25;
/**
 * After preempting, how long the host waits for the stopped statement's lock to go (its rollback,
 * or the OS on a process's exit).
 */
export const PREEMPTED_WAIT_MS = 1_000;
/** With no preemptible writer in flight, the holder is another process (e.g. a second tool): the old wait. */
export const FOREIGN_WAIT_MS = 5_000;

const isBusy = (e: unknown) => String((e as { code?: unknown }).code ?? '').startsWith('SQLITE_BUSY');

/**
 * Puts every write through the host's connection to an agent file under one rule: wait at most
 * {@link HOST_WRITE_GRACE_MS} for the write lock; if an agent statement holds it, preempt that
 * statement (interrupt its SQL worker's statement; SIGKILL of a SQL process) and retry, so the
 * host's event loop never waits on a time cap the agent chose. A write that still finds the lock
 * held fails loudly with `ADF_BUSY`: nothing is dropped silently. Returns the wrapped connection
 * and the writer registry.
 *
 * The wrapped connection is a Proxy over better-sqlite3: `prepare` returns statements whose
 * writes (`run`, and `get`/`all` of a statement that is not read-only, e.g. `RETURNING`) go
 * through the rule, and `exec` and `transaction` do too. Inside a transaction the lock is
 * already held, so statements run directly; a busy error inside a deferred transaction makes the
 * whole transaction retry (better-sqlite3 rolled it back).
 */
export function arbitrateWrites(raw: Database.Database): { db: Database.Database; writers: AdfWriters } {
  const writers = new Set<PreemptibleWriter>();
  let timeoutMs = -1;
  const setBusyTimeout = (ms: number) => {
    if (timeoutMs !== ms) {
      raw.pragma(`busy_timeout = ${ms}`);
      timeoutMs = ms;
    }
  };
  setBusyTimeout(HOST_WRITE_GRACE_MS);

  function write<T>(fn: () => T, snapshotRetries = 1): T {
    if (raw.inTransaction) return fn();
    try {
      return fn();
    } catch (first) {
      if (!isBusy(first)) throw first;
      // SQLITE_BUSY_SNAPSHOT: a deferred transaction read a snapshot older than a commit made
      // meanwhile; the lock may be free, so it starts over once before anything is stopped.
      if ((first as { code?: string }).code === 'SQLITE_BUSY_SNAPSHOT' && snapshotRetries > 0)
        return write(fn, snapshotRetries - 1);
      let preempted = 0;
      for (const w of writers)
        if (w.mayHoldWriteLock()) {
          w.preempt();
          preempted++;
        }
      setBusyTimeout(preempted > 0 ? PREEMPTED_WAIT_MS : FOREIGN_WAIT_MS);
      try {
        return fn();
      } catch (second) {
        if (!isBusy(second)) throw second;
        throw new TrustError(
          'ADF_BUSY',
          'the agent file is locked by another writer; the host write was not made ' +
            `(waited ${timeoutMs} ms${preempted > 0 ? ` after stopping ${preempted} agent SQL statement(s)` : ''})`,
          {
            cause: second,
            hint: 'retry the operation; if it persists, close other programs that have this .adf file open',
          },
        );
      } finally {
        setBusyTimeout(HOST_WRITE_GRACE_MS);
      }
    }
  }

  const wrapStatement = (stmt: Database.Statement): Database.Statement => {
    const methods = new Map<PropertyKey, unknown>();
    const proxy: Database.Statement = new Proxy(stmt, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target) as unknown;
        if (typeof v !== 'function') return v;
        let m = methods.get(prop);
        if (!m) {
          const f = v as (...a: unknown[]) => unknown;
          const writes = prop === 'run' || ((prop === 'get' || prop === 'all') && !target.readonly);
          m = writes
            ? (...a: unknown[]) => write(() => f.apply(target, a))
            : (...a: unknown[]) => {
                const r = f.apply(target, a);
                return r === target ? proxy : r;
              };
          methods.set(prop, m);
        }
        return m;
      },
    });
    return proxy;
  };

  type Tx = ((...a: unknown[]) => unknown) &
    Record<'deferred' | 'immediate' | 'exclusive', (...a: unknown[]) => unknown>;
  const wrapTransaction = (tx: Tx): Tx => {
    const w = ((...a: unknown[]) => write(() => tx(...a))) as Tx;
    for (const k of ['deferred', 'immediate', 'exclusive'] as const)
      w[k] = (...a: unknown[]) => write(() => tx[k](...a));
    return w;
  };

  const methods = new Map<PropertyKey, unknown>();
  const db: Database.Database = new Proxy(raw, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== 'function' || prop === 'constructor') return v;
      let m = methods.get(prop);
      if (!m) {
        const f = v as (...a: unknown[]) => unknown;
        if (prop === 'prepare') m = (sql: string) => wrapStatement(target.prepare(sql));
        else if (prop === 'exec')
          m = (sql: string) => {
            write(() => target.exec(sql));
            return db;
          };
        else if (prop === 'transaction')
          m = (fn: (...a: unknown[]) => unknown) => wrapTransaction(target.transaction(fn) as unknown as Tx);
        else
          m = (...a: unknown[]) => {
            const r = f.apply(target, a);
            return r === target ? db : r;
          };
        methods.set(prop, m);
      }
      return m;
    },
  });

  return {
    db,
    writers: {
      register(w) {
        writers.add(w);
        return () => {
          writers.delete(w);
        };
      },
    },
  };
}
