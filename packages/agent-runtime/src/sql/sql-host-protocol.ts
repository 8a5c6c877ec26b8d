import type { TrustErrorCode } from '@trust/core';
import { TrustError, type Deny } from '@trust/core';
import type { QueryResult } from './sql-engine.js';
import type { TableProtection } from './sql-policy.js';

/** Wire version of the host ↔ SQL process messages (2: own framed pipe, `idle` after a write). */
export const SQL_HOST_PROTOCOL = 2;

/** One request from the host to its SQL process. */
export type SqlRequest =
  | {
      readonly v: 2;
      readonly id: number;
      readonly kind: 'check';
      readonly mode: 'query' | 'execute';
      readonly sql: string;
      readonly params: unknown[];
      readonly protections: Readonly<Record<string, TableProtection>>;
      readonly authorized: boolean;
    }
  | {
      readonly v: 2;
      readonly id: number;
      readonly kind: 'query';
      readonly sql: string;
      readonly params: unknown[];
      readonly maxRows: number;
      readonly maxBytes: number;
    }
  | {
      readonly v: 2;
      readonly id: number;
      readonly kind: 'execute';
      readonly sql: string;
      readonly params: unknown[];
      readonly protections: Readonly<Record<string, TableProtection>>;
      readonly authorized: boolean;
      readonly maxGrowthBytes: number;
    };

/** An error as it crosses the process boundary. */
export interface WireError {
  readonly code: TrustErrorCode;
  readonly message: string;
  readonly hint?: string;
  readonly decision?: Deny;
}

/**
 * One answer: `ready` once after start, then one per request id. After an `execute` answer the
 * process checkpoints the WAL and then sends `idle`: until then it may hold the write lock.
 */
export type SqlResponse =
  | { readonly v: 2; readonly kind: 'ready' }
  | { readonly v: 2; readonly kind: 'fatal'; readonly error: WireError }
  | { readonly v: 2; readonly id: number; readonly kind: 'ok'; readonly value: unknown }
  | { readonly v: 2; readonly id: number; readonly kind: 'error'; readonly error: WireError }
  | { readonly v: 2; readonly id: number; readonly kind: 'idle' };

/** Flattens any error for the wire; anything that is not a TrustError becomes `SQL_FAILED`. */
export function toWireError(e: unknown): WireError {
  if (e instanceof TrustError) {
    return {
      code: e.code,
      message: e.message,
      ...(e.hint !== undefined ? { hint: e.hint } : {}),
      ...(e.decision ? { decision: e.decision } : {}),
    };
  }
  return { code: 'SQL_FAILED', message: `SQLite failed: ${e instanceof Error ? e.message : String(e)}` };
}

/** Rebuilds the TrustError on the host side, with the same code, message, hint and decision. */
export function fromWireError(w: WireError): TrustError {
  return new TrustError(w.code, w.message, {
    ...(w.hint !== undefined ? { hint: w.hint } : {}),
    ...(w.decision ? { decision: w.decision } : {}),
  });
}

/**
 * A query result as it crosses to the host: each row an array in `columns` order (smaller to
 * encode and decode than objects); the host turns rows back into objects (see toQueryResult).
 */
export interface WireQueryResult {
  readonly columns: string[];
  readonly rows: unknown[][];
  readonly truncated: boolean;
  readonly truncatedBy?: 'rows' | 'bytes';
}
/** Rebuilds object rows; a repeated column name keeps its last value, as better-sqlite3 does. */
export function toQueryResult(w: WireQueryResult): QueryResult {
  const { columns } = w;
  const n = columns.length;
  const rows = w.rows.map((r) => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) o[columns[i]!] = r[i];
    return o;
  });
  return w.truncatedBy
    ? { columns, rows, truncated: true, truncatedBy: w.truncatedBy }
    : { columns, rows, truncated: w.truncated };
}
