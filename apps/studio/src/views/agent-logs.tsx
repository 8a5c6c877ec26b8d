import { useEffect, useState } from 'react';
import { ApiError } from '../api';
import type { LogPage, LogRow } from '../agent-detail-types';
import { foldLogEvent, type LogFilter, logQuery, prependLogPage } from '../agent-log-tail';
import { ErrorNote, useStudio } from '../studio-context';

const PAGE = 100;
const LEVELS = ['', 'debug', 'info', 'warn', 'error'] as const;
const LEVEL_BADGE: Record<string, string> = { warn: 'badge warn', error: 'badge deny' };

/**
 * The agent's log table, newest at the bottom, with level and since filters, older pages on
 * demand and a live tail from the event stream. Every field is agent- or model-made text and is
 * rendered as React text, never as HTML.
 */
export function AgentLogs({ agent }: { agent: string }) {
  const { api, onDenied } = useStudio();
  const [filter, setFilter] = useState<LogFilter>({ level: '', since: '' });
  const [rows, setRows] = useState<LogRow[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<ApiError>();
  const base = `/agents/${encodeURIComponent(agent)}/logs`;
  const fail = (e: unknown) => {
    if (e instanceof ApiError && e.status === 401) onDenied();
    setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: fail only reports; the page reloads on these
  useEffect(() => {
    const ac = new AbortController();
    let live = true;
    setLoaded(false);
    // The tail is opened before the page is read; a row seen in both is kept once. A row written
    // before the stream is connected and after the page was read shows on the next load.
    api.events((e) => setRows((r) => foldLogEvent(r, e, agent, filter)), ac.signal).catch(() => undefined);
    api.get<LogPage>(base + logQuery(filter, PAGE)).then(
      (p) => {
        if (!live) return;
        setRows((r) => prependLogPage(r, p.logs));
        setNext(p.next);
        setError(undefined);
        setLoaded(true);
      },
      (e: unknown) => live && fail(e),
    );
    return () => {
      live = false;
      ac.abort();
      setRows([]);
    };
  }, [api, agent, base, filter]);

  const older = () => {
    if (next === null) return;
    api.get<LogPage>(base + logQuery(filter, PAGE, next)).then((p) => {
      setRows((r) => prependLogPage(r, p.logs));
      setNext(p.next);
    }, fail);
  };
  const setSince = (v: string) => {
    const t = v === '' ? Number.NaN : Date.parse(v);
    setFilter((f) => ({ ...f, since: Number.isNaN(t) ? '' : new Date(t).toISOString() }));
  };
  const filtered = filter.level !== '' || filter.since !== '';

  return (
    <div className="agent-logs" data-panel="logs">
      <div className="toolbar">
        <label>
          Level{' '}
          <select
            aria-label="log level"
            value={filter.level}
            onChange={(e) => setFilter((f) => ({ ...f, level: e.target.value }))}
          >
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {l === '' ? 'any' : l}
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          Since <input type="datetime-local" step={1} aria-label="since" onChange={(e) => setSince(e.target.value)} />
        </label>{' '}
        <span className="badge ok" title="new rows appear as the runtime writes them">
          live
        </span>
      </div>
      <ErrorNote error={error} />
      {next !== null ? (
        <button type="button" className="link" onClick={older}>
          load older rows
        </button>
      ) : null}
      {loaded && rows.length === 0 ? (
        <div className="empty" data-empty="logs">
          {filtered ? (
            <p>No log rows match these filters. Clear the level or the time to see more.</p>
          ) : (
            <p>
              No log rows yet. The runtime writes here what the agent says, tool and trigger failures, and MCP
              connections; new rows appear live.
            </p>
          )}
        </div>
      ) : (
        <table className="logs">
          <thead>
            <tr>
              <th>Time</th>
              <th>Level</th>
              <th>Origin</th>
              <th>Event</th>
              <th>Message</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((l) => (
              <tr key={l.id} data-log-id={l.id}>
                <td>
                  <time dateTime={l.time}>{l.time}</time>
                </td>
                <td>
                  <span className={LEVEL_BADGE[l.level] ?? 'badge'}>{l.level}</span>
                </td>
                <td>{l.origin ?? '—'}</td>
                <td>
                  {l.event ?? '—'}
                  {l.target ? <span className="muted"> · {l.target}</span> : null}
                </td>
                <td>
                  <pre className="plain">{l.message}</pre>
                  {l.data === null ? null : <code className="log-data">{l.data}</code>}
                  {l.truncated ? <span className="badge warn">cut</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
