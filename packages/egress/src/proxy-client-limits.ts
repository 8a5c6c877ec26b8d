import { z } from 'zod';
import { checkEgressOptions, duration, MAX_TIMER_MS } from './egress-options.js';

/**
 * Limits of the proxy's client side: what one sandboxed client may hold open and for how long.
 * The proxy enforces every deadline itself, from the connection's first byte. Every field has a
 * safe default.
 */
export interface EgressProxyClientLimits {
  /** From accepting a connection to its first byte (default 10 s); then `408`, closed. */
  readonly firstByteTimeoutMs?: number;
  /** From a request's first byte to the end of its head (default 10 s); then `408`, closed. */
  readonly headerTimeoutMs?: number;
  /** From a request's first byte to the end of its body (default 60 s); then `408`, closed. */
  readonly requestTimeoutMs?: number;
  /** A kept-alive connection with no request under way is closed after this (default 5 s). */
  readonly idleTimeoutMs?: number;
  /** Open client connections of this listener, i.e. of its one principal (default 64); more get `503`. */
  readonly maxConnections?: number;
  /** Header lines of one request (default 200); more is `431`, never a truncated request. */
  readonly maxHeaderCount?: number;
  /** Requests parsed ahead on one connection (pipelined) before the proxy stops reading (default 8). */
  readonly maxPipelined?: number;
}

export type ResolvedClientLimits = Required<EgressProxyClientLimits>;

export const DEFAULT_CLIENT_LIMITS: ResolvedClientLimits = Object.freeze({
  firstByteTimeoutMs: 10_000,
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 5_000,
  maxConnections: 64,
  maxHeaderCount: 200,
  maxPipelined: 8,
});

const count = (what: string, max: number) => z.number().int().positive().max(max).optional().describe(what);

/** The strict schema of `EgressProxyClientLimits`. Timeouts are positive: 0 would mean "never". */
export const clientLimitsSchema = z
  .object({
    firstByteTimeoutMs: duration('deadline for the first byte in ms, e.g. 10000').optional(),
    headerTimeoutMs: duration('deadline for a complete request head in ms, e.g. 10000').optional(),
    requestTimeoutMs: duration('deadline for a complete request (head and body) in ms, e.g. 60000').optional(),
    idleTimeoutMs: duration('keep-alive idle time in ms, e.g. 5000').optional(),
    maxConnections: count('open client connections of this listener, e.g. 64', 65_535),
    maxHeaderCount: count('header lines of one request, e.g. 200', 10_000),
    maxPipelined: count('requests parsed ahead on one connection, e.g. 8', 1024),
  })
  .strict()
  .describe('client-side limits, e.g. { maxConnections: 64, idleTimeoutMs: 5000 }');

/** The client limits with every default filled in (`limits` has passed `clientLimitsSchema`). */
export function resolveClientLimits(limits: EgressProxyClientLimits = {}): ResolvedClientLimits {
  const given = Object.entries(limits).filter(([, v]) => v !== undefined);
  return Object.freeze({ ...DEFAULT_CLIENT_LIMITS, ...Object.fromEntries(given) });
}

/**
 * A count of open client connections shared by several proxies (one per sandboxed run) in one
 * process: the total cap, on top of each proxy's own `maxConnections`.
 */
export interface ConnectionBudget {
  /** The cap. */
  readonly max: number;
  /** Connections open now. */
  readonly open: number;
  /** Takes one slot: a release function (idempotent), or `undefined` when the budget is spent. */
  tryAcquire(): (() => void) | undefined;
}

const budgetSchema = z
  .object({ maxConnections: count('open client connections of all proxies sharing it, e.g. 1024', MAX_TIMER_MS) })
  .strict();

/**
 * A connection budget to share between proxies: pass the same one as `connectionBudget` to each
 * `createEgressProxy`, and no more than `maxConnections` client connections (default 1024) are
 * open across them. Keep it below the process's descriptor limit, leaving room for upstreams.
 *
 * @example
 * const budget = createConnectionBudget({ maxConnections: 512 });
 * const a = await createEgressProxy({ policy, principal: runA, listen, connectionBudget: budget });
 * const b = await createEgressProxy({ policy, principal: runB, listen, connectionBudget: budget });
 */
export function createConnectionBudget(options: { readonly maxConnections?: number } = {}): ConnectionBudget {
  checkEgressOptions('createConnectionBudget', budgetSchema, options);
  const max = options.maxConnections ?? 1024;
  let open = 0;
  return {
    max,
    get open() {
      return open;
    },
    tryAcquire() {
      if (open >= max) return undefined;
      open += 1;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        open -= 1;
      };
    },
  };
}
