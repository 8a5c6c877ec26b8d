// The Logs tab's list, folded from pages and live `log` events. Pure, so it is unit-tested.

import type { LogRow } from './agent-detail-types';
import type { LiveEvent } from './types';

/** Most rows the tab keeps in memory; the oldest are dropped first (older pages can be loaded again). */
export const LOG_VIEW_MAX = 2000;

/** The filters of the tab: `level` '' is every level; `since` '' is no lower bound (else an ISO time). */
export interface LogFilter {
  level: string;
  since: string;
}

/** The query string of one page request for `filter`, older than `before` when given. */
export function logQuery(filter: LogFilter, limit: number, before?: number): string {
  const q = new URLSearchParams({ limit: String(limit) });
  if (filter.level !== '') q.set('level', filter.level);
  if (filter.since !== '') q.set('since', filter.since);
  if (before !== undefined) q.set('before', String(before));
  return `?${q.toString()}`;
}

/** Whether a row is one the filter shows (the server applies the same rules to pages). */
export function matchesLogFilter(row: LogRow, filter: LogFilter): boolean {
  if (filter.level !== '' && row.level !== filter.level) return false;
  return filter.since === '' || row.time >= filter.since;
}

function isLogRow(v: unknown): v is LogRow {
  const r = v as Partial<LogRow> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.id === 'number' &&
    typeof r.level === 'string' &&
    typeof r.message === 'string' &&
    typeof r.time === 'string'
  );
}

/** The list after one live event: a new row of `agent` that the filter shows is appended once, in id order. */
export function foldLogEvent(rows: readonly LogRow[], event: LiveEvent, agent: string, filter: LogFilter): LogRow[] {
  if (event.kind !== 'log' || event.agent !== agent || !isLogRow(event.data)) return rows as LogRow[];
  const row = event.data;
  if (!matchesLogFilter(row, filter) || rows.some((r) => r.id === row.id)) return rows as LogRow[];
  const next = [...rows, row].sort((a, b) => a.id - b.id);
  return next.length > LOG_VIEW_MAX ? next.slice(next.length - LOG_VIEW_MAX) : next;
}

/** An older page put in front of the list (rows already shown are not repeated). */
export function prependLogPage(rows: readonly LogRow[], older: readonly LogRow[]): LogRow[] {
  const seen = new Set(rows.map((r) => r.id));
  return [...older.filter((r) => !seen.has(r.id)), ...rows];
}
