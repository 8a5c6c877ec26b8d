import { existsSync } from 'node:fs';
import { TrustError } from '@trust/core';
import { createSqlHost, type SqlHost, type SqlHostOptions } from './sql-host.js';
import { ensureSqlInterruptLibrary, openSqlInterrupter, type SqlInterruptBuildOptions } from './sql-interrupt.js';
import { createSqlThreadHost, type SqlThreadHostOptions } from './sql-thread-host.js';

/**
 * Where agent SQL runs. `thread`: a worker thread per agent, stopped by `sqlite3_interrupt`
 * (needs the interrupt library, compiled on first use). `process`: a child process per agent,
 * stopped by SIGKILL. `auto` (the default): `thread`, or `process` when the library cannot be
 * built or loaded here (no C compiler, an unsafe cache, no `/proc/thread-self`): it fails closed to the process.
 */
export type SqlMechanism = 'auto' | 'thread' | 'process';

export interface SelectedSqlHostOptions extends SqlHostOptions {
  readonly mechanism?: SqlMechanism;
  readonly build?: SqlInterruptBuildOptions;
  readonly thread?: Pick<
    SqlThreadHostOptions,
    'syncWaitMs' | 'stopMarginMs' | 'channelBytes' | 'hostSpinMicros' | 'workerSpinMicros'
  >;
}

export interface SelectedSqlHost extends SqlHost {
  /** The mechanism in use once the first call decided it. */
  mechanism(): 'thread' | 'process' | undefined;
  /** The worker thread's id while one runs (thread mechanism). */
  threadId(): number | undefined;
  /** The compiled interrupt library, once the thread mechanism is in use. */
  library(): string | undefined;
}

/**
 * Picks the mechanism on first use and delegates to it. A call made before the decision waits for
 * it; a preempt before the decision has nothing to stop.
 *
 * @example
 * const host = createSelectedSqlHost({ path: adf.path, mechanism: 'auto' });
 */
export function createSelectedSqlHost(options: SelectedSqlHostOptions): SelectedSqlHost {
  const mechanism = options.mechanism ?? 'auto';
  let host: (SqlHost & { threadId?: () => number | undefined }) | undefined;
  let kind: 'thread' | 'process' | undefined;
  let closeExtra: (() => void) | undefined;
  let library: string | undefined;
  let deciding: Promise<SqlHost> | undefined;

  async function decide(): Promise<SqlHost> {
    if (mechanism !== 'process') {
      try {
        // The worker names its connections by OS thread id, read from /proc (Linux).
        if (!existsSync('/proc/thread-self'))
          throw new TrustError(
            'SQL_HOST_FAILED',
            'no /proc/thread-self here: SQL worker threads cannot be interrupted',
            {
              hint: "use mechanism 'process' (or 'auto', which falls back to it)",
            },
          );
        const lib = await ensureSqlInterruptLibrary(options.build);
        const interrupter = openSqlInterrupter(lib);
        const thread = createSqlThreadHost({ ...options, ...options.thread, lib, interrupter });
        try {
          // A first statement proves the worker opened the file and registered its connections.
          await thread.call(
            { kind: 'check', mode: 'query', sql: 'select 1', params: [], protections: {}, authorized: false },
            options.startTimeoutMs ?? 15_000,
          );
        } catch (e) {
          await thread.close();
          interrupter.close();
          throw e;
        }
        closeExtra = () => interrupter.close();
        kind = 'thread';
        library = lib;
        host = thread;
        return host;
      } catch (e) {
        if (mechanism === 'thread') throw e;
      }
    }
    kind = 'process';
    host = createSqlHost(options);
    return host;
  }

  return {
    call(request, timeoutMs) {
      if (host) return host.call(request, timeoutMs);
      deciding ??= decide();
      return deciding.then((h) => h.call(request, timeoutMs));
    },
    mayHoldWriteLock: () => host?.mayHoldWriteLock() ?? false,
    preempt: () => host?.preempt(),
    pid: () => host?.pid(),
    mechanism: () => kind,
    threadId: () => host?.threadId?.(),
    library: () => library,
    async close() {
      const h = host ?? (deciding ? await deciding.catch(() => undefined) : undefined);
      await h?.close();
      closeExtra?.();
    },
  };
}
