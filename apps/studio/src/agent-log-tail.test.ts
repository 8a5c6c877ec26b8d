import { describe, expect, it } from 'vitest';
import type { LogRow } from './agent-detail-types';
import { foldLogEvent, LOG_VIEW_MAX, logQuery, matchesLogFilter, prependLogPage } from './agent-log-tail';

const row = (id: number, over: Partial<LogRow> = {}): LogRow => ({
  id,
  level: 'info',
  origin: null,
  event: null,
  target: null,
  message: `m${id}`,
  data: null,
  time: `2026-01-01T00:00:${String(id).padStart(2, '0')}.000Z`,
  truncated: false,
  ...over,
});
const any = { level: '', since: '' };
const ev = (data: unknown, agent = 'a', kind = 'log') => ({ kind, agent, data });

describe('log tail', () => {
  it.each([
    [any, 100, undefined, '?limit=100'],
    [{ level: 'warn', since: '' }, 50, undefined, '?limit=50&level=warn'],
    [{ level: '', since: '2026-01-01T00:00:00.000Z' }, 10, 7, '?limit=10&since=2026-01-01T00%3A00%3A00.000Z&before=7'],
    [{ level: 'x&token=1', since: '' }, 1, undefined, '?limit=1&level=x%26token%3D1'],
  ])('query for %j, %i, before %s is %s', (filter, limit, before, q) => {
    expect(logQuery(filter, limit, before)).toBe(q);
  });

  it.each([
    [row(1), any, true],
    [row(1, { level: 'warn' }), { level: 'warn', since: '' }, true],
    [row(1), { level: 'warn', since: '' }, false],
    [row(5), { level: '', since: '2026-01-01T00:00:05.000Z' }, true],
    [row(4), { level: '', since: '2026-01-01T00:00:05.000Z' }, false],
  ])('row %j under %j is shown: %s', (r, f, shown) => {
    expect(matchesLogFilter(r, f)).toBe(shown);
  });

  it('appends a live row of this agent once, in id order, and ignores others', () => {
    const rows = [row(1), row(3)];
    expect(foldLogEvent(rows, ev(row(2)), 'a', any).map((r) => r.id)).toEqual([1, 2, 3]);
    expect(foldLogEvent(rows, ev(row(3)), 'a', any)).toBe(rows);
    expect(foldLogEvent(rows, ev(row(4), 'b'), 'a', any)).toBe(rows);
    expect(foldLogEvent(rows, ev(row(4), 'a', 'turn'), 'a', any)).toBe(rows);
    expect(foldLogEvent(rows, ev({ id: '4', message: 1 }), 'a', any)).toBe(rows);
    expect(foldLogEvent(rows, ev(row(4, { level: 'debug' })), 'a', { level: 'warn', since: '' })).toBe(rows);
  });

  it(`keeps at most ${LOG_VIEW_MAX} rows, dropping the oldest`, () => {
    const rows = Array.from({ length: LOG_VIEW_MAX }, (_, i) => row(i + 1));
    const next = foldLogEvent(rows, ev(row(LOG_VIEW_MAX + 1)), 'a', any);
    expect(next).toHaveLength(LOG_VIEW_MAX);
    expect(next[0]?.id).toBe(2);
    expect(next.at(-1)?.id).toBe(LOG_VIEW_MAX + 1);
  });

  it('puts an older page in front without repeating rows', () => {
    expect(prependLogPage([row(3), row(4)], [row(1), row(2), row(3)]).map((r) => r.id)).toEqual([1, 2, 3, 4]);
  });
});
