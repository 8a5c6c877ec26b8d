import type { AdfFile } from '@trust/agent-runtime';
import type { LogRow } from '@trust/agent-runtime/adf';
import type { AgentLogPage, AgentLogQuery, AgentLogRow } from './agent-registry.js';
import { controlError } from './control-error.js';

/** Rows per page when the query names no limit, and the most a page may hold. */
export const LOG_PAGE_DEFAULT = 100;
export const LOG_PAGE_MAX = 500;
/** Longest message and data text one row carries, in UTF-16 units (the studio shows a cut mark). */
export const LOG_MESSAGE_MAX = 4000;
export const LOG_DATA_MAX = 2000;

const LEVEL = /^[a-z]{1,16}$/;
const QUERY_KEYS = new Set(['level', 'since', 'before', 'limit']);

/**
 * Parses the query of `GET …/logs`. Fails closed: an unknown key, a bad level, time, cursor or
 * limit is refused (`CONTROL_BAD_REQUEST`), never ignored.
 */
export function parseLogQuery(query: URLSearchParams): AgentLogQuery {
  const bad = (what: string, hint: string) => controlError('CONTROL_BAD_REQUEST', what, hint);
  for (const k of query.keys())
    if (!QUERY_KEYS.has(k)) throw bad(`unknown log filter "${k.slice(0, 40)}"`, 'use level, since, before or limit');
  const one = (k: string) => {
    const all = query.getAll(k);
    if (all.length > 1) throw bad(`"${k}" is given ${all.length} times`, 'give each filter once');
    return all[0];
  };
  const int = (k: string, min: number, max: number) => {
    const v = one(k);
    if (v === undefined) return undefined;
    if (!/^[0-9]{1,15}$/.test(v) || Number(v) < min || Number(v) > max)
      throw bad(`"${k}" must be an integer from ${min} to ${max}`, `e.g. ${k}=${min}`);
    return Number(v);
  };
  const level = one('level');
  if (level !== undefined && !LEVEL.test(level)) throw bad('"level" must be a lowercase word', 'e.g. level=warn');
  const sinceText = one('since');
  const since = sinceText === undefined ? undefined : Date.parse(sinceText);
  if (since !== undefined && (!/^\d{4}-\d{2}-\d{2}T/.test(sinceText ?? '') || Number.isNaN(since)))
    throw bad('"since" must be an ISO time', 'e.g. since=2026-01-01T00:00:00Z');
  const before = int('before', 1, Number.MAX_SAFE_INTEGER);
  const limit = int('limit', 1, LOG_PAGE_MAX);
  return {
    ...(level === undefined ? {} : { level }),
    ...(since === undefined ? {} : { since: new Date(since).toISOString() }),
    ...(before === undefined ? {} : { before }),
    ...(limit === undefined ? {} : { limit }),
  };
}

/** A stored row as the API shows it, message and data cut to their bounds. */
export function toLogRow(r: LogRow): AgentLogRow {
  const data = r.data === null || r.data === undefined ? null : JSON.stringify(r.data);
  const cut = r.message.length > LOG_MESSAGE_MAX || (data !== null && data.length > LOG_DATA_MAX);
  return {
    id: r.id,
    level: r.level,
    origin: r.origin,
    event: r.event,
    target: r.target,
    message: r.message.slice(0, LOG_MESSAGE_MAX),
    data: data === null ? null : data.slice(0, LOG_DATA_MAX),
    time: r.createdAt,
    truncated: cut,
  };
}

/**
 * The Logs tab of one agent, over the file's own log reader (`adf.logs.list`), and the live tail:
 * each row the runtime adds is handed to `onRow` after its write committed. Returns the page
 * reader and the unsubscribe of the tail.
 */
export function adfLogs(
  adf: AdfFile,
  onRow: (row: AgentLogRow) => void,
): { logs(query: AgentLogQuery): AgentLogPage; stop(): void } {
  const stop = adf.events.subscribe((e) => {
    if (e.kind !== 'log') return;
    // Read the row back through the same reader (data and time are not in the event).
    const row = adf.logs.list({ beforeId: e.row.id + 1, limit: 1 })[0];
    if (row?.id === e.row.id) onRow(toLogRow(row));
  });
  return {
    logs(q) {
      const limit = Math.min(q.limit ?? LOG_PAGE_DEFAULT, LOG_PAGE_MAX);
      // One row more than the page says whether an older page exists.
      const rows = adf.logs.list({
        limit: limit + 1,
        ...(q.level === undefined ? {} : { level: q.level }),
        ...(q.since === undefined ? {} : { since: q.since }),
        ...(q.before === undefined ? {} : { beforeId: q.before }),
      });
      const page = rows.length > limit ? rows.slice(1) : rows;
      return { logs: page.map(toLogRow), next: rows.length > limit ? (page[0]?.id ?? null) : null, limit };
    },
    stop,
  };
}
