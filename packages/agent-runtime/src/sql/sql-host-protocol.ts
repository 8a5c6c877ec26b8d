import type { TrustErrorCode } from '@trust/core';
import { TrustError, type Deny } from '@trust/core';
import type { TableProtection } from './sql-policy.js';

/** Wire version of the host ↔ SQL process messages. */
export const SQL_HOST_PROTOCOL = 1;

/** One request from the host to its SQL process. */
export type SqlRequest =
  | { readonly v: 1; readonly id: number; readonly kind: 'check'; readonly mode: 'query' | 'execute'; readonly sql: string; readonly params: unknown[]; readonly protections: Readonly<Record<string, TableProtection>>; readonly authorized: boolean }
  | { readonly v: 1; readonly id: number; readonly kind: 'query'; readonly sql: string; readonly params: unknown[]; readonly maxRows: number; readonly maxBytes: number }
  | { readonly v: 1; readonly id: number; readonly kind: 'execute'; readonly sql: string; readonly params: unknown[]; readonly protections: Readonly<Record<string, TableProtection>>; readonly authorized: boolean; readonly maxGrowthBytes: number };

/** An error as it crosses the process boundary. */
export interface WireError { readonly code: TrustErrorCode; readonly message: string; readonly hint?: string; readonly decision?: Deny }

/** One answer: `ready` once after start, then one per request id. */
export type SqlResponse =
  | { readonly v: 1; readonly kind: 'ready' }
  | { readonly v: 1; readonly kind: 'fatal'; readonly error: WireError }
  | { readonly v: 1; readonly id: number; readonly kind: 'ok'; readonly value: unknown }
  | { readonly v: 1; readonly id: number; readonly kind: 'error'; readonly error: WireError };

/** Flattens any error for the wire; anything that is not a TrustError becomes `SQL_FAILED`. */
export function toWireError(e: unknown): WireError {
  if (e instanceof TrustError) {
    return { code: e.code, message: e.message, ...(e.hint !== undefined ? { hint: e.hint } : {}), ...(e.decision ? { decision: e.decision } : {}) };
  }
  return { code: 'SQL_FAILED', message: `SQLite failed: ${e instanceof Error ? e.message : String(e)}` };
}

/** Rebuilds the TrustError on the host side, with the same code, message, hint and decision. */
export function fromWireError(w: WireError): TrustError {
  return new TrustError(w.code, w.message, { ...(w.hint !== undefined ? { hint: w.hint } : {}), ...(w.decision ? { decision: w.decision } : {}) });
}
