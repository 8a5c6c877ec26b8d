// The audit timeline's filters, as pure functions so they are unit-tested.
import type { AuditRow } from './types';

export interface AuditFilter {
  /** A log name, or '' for every log. */
  log: string;
  /** `kind:id` of a principal, or '' for everyone. */
  principal: string;
  /** Substring of the action (or the target), case-insensitive; '' for any. */
  action: string;
  decision: 'all' | 'allow' | 'deny';
}

export const NO_FILTER: AuditFilter = { log: '', principal: '', action: '', decision: 'all' };

/** How a row's principal is named in the filter and the table. */
export function principalName(row: Pick<AuditRow, 'principal'>): string {
  return `${row.principal.kind}:${row.principal.id}`;
}

/** The rows that pass every filter, in their order. */
export function filterAudit(rows: readonly AuditRow[], f: AuditFilter): AuditRow[] {
  const needle = f.action.trim().toLowerCase();
  return rows.filter(
    (r) =>
      (f.log === '' || r.log === f.log) &&
      (f.principal === '' || principalName(r) === f.principal) &&
      (f.decision === 'all' || r.decision === f.decision) &&
      (needle === '' || r.action.toLowerCase().includes(needle) || r.target.toLowerCase().includes(needle)),
  );
}

/** The distinct principals of the rows, sorted, for the principal filter. */
export function principalsOf(rows: readonly AuditRow[]): string[] {
  return [...new Set(rows.map(principalName))].sort();
}
