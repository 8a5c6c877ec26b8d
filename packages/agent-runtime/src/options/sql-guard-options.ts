import { z } from 'zod';
import { positive } from './strict-options.js';

// The strict schema of `createSqlGuard`'s options, checked once at its boundary. Every cap left
// out falls back to the agent's config limits.

const bytes = (what: string) => z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe(what);

/** The strict schema of `createSqlGuard`'s options (the second argument). */
export const sqlGuardOptionsSchema = z
  .object({
    maxRows: z.number().int().positive().max(2_147_483_647).describe('row cap of a query, e.g. 1000').optional(),
    maxResultBytes: bytes('byte cap of one query result, e.g. 1048576').optional(),
    timeoutMs: positive('wall-clock cap of db_query in ms, e.g. 5000').optional(),
    executeTimeoutMs: positive('wall-clock cap of db_execute in ms, e.g. 20000').optional(),
    maxGrowthBytes: bytes('how much one db_execute may grow the file, e.g. 67108864').optional(),
    checkTimeoutMs: positive('wall-clock cap of a check (compiling only) in ms, e.g. 5000').optional(),
    mechanism: z
      .enum(['auto', 'thread', 'process'])
      .optional()
      .describe('where agent SQL runs: "auto", "thread" or "process", e.g. "auto"'),
    nativeCacheDir: z
      .string()
      .min(1)
      .optional()
      .describe('cache directory of the compiled interrupt library, e.g. ".cache/sql-interrupt"'),
    cc: z.string().min(1).optional().describe('C compiler of the interrupt library, e.g. "cc"'),
    channel: z
      .object({
        syncWaitMs: z
          .number()
          .min(0)
          .max(2_147_483_647)
          .optional()
          .describe('host-side wait for an answer in ms, capped at 2, e.g. 1'),
        hostSpinMicros: z.number().int().min(0).max(2000).optional().describe('host busy-poll in µs, e.g. 0'),
        workerSpinMicros: z.number().int().min(0).max(2000).optional().describe('worker busy-poll in µs, e.g. 0'),
      })
      .strict()
      .optional()
      .describe('tuning of the thread channel, e.g. { syncWaitMs: 1 }'),
    fastLane: z
      .boolean()
      .optional()
      .describe('whether judged, quick db_query statements may run on the bounded host-thread lane, e.g. true'),
  })
  .strict()
  .describe('createSqlGuard options, e.g. { mechanism: "auto", timeoutMs: 5000 }');
