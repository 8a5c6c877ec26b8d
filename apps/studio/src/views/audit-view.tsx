import { useState } from 'react';
import { filterAudit, NO_FILTER, principalName, principalsOf, type AuditFilter } from '../audit-filter';
import { ErrorNote, useLoad } from '../studio-context';
import type { AuditLogInfo, AuditRow, ChainStatus } from '../types';
import { AuditChart } from './audit-chart';
import { DenialRule } from './denial-rule';

/** One timeline across every agent's chain and the host's logs, with chain status per log and filters. */
export function AuditView() {
  const { data, error } = useLoad<{ logs: AuditLogInfo[]; events: AuditRow[]; policies?: Record<string, unknown> }>(
    '/audit',
  );
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);
  const set = (change: Partial<AuditFilter>) => setFilter((f) => ({ ...f, ...change }));
  const rows = filterAudit(data?.events ?? [], filter);

  return (
    <section>
      <header className="view-head">
        <h2>Audit</h2>
      </header>
      <ErrorNote error={error} />
      <ul className="logs">
        {(data?.logs ?? []).map((l) => (
          <li key={l.name} data-log={l.name}>
            <span className="log-name">{l.name}</span>{' '}
            <span className="muted">
              {l.kind} · {l.count} {l.count === 1 ? 'event' : 'events'}
            </span>{' '}
            <ChainBadge chain={l.chain} />
          </li>
        ))}
      </ul>
      {data !== undefined && data.events.length === 0 ? (
        <p className="muted empty">
          No decisions recorded yet. Every tool call, approval, owner change, sandbox run and egress decision lands here
          as it happens.
        </p>
      ) : null}
      <AuditChart events={rows} />
      <div className="filters">
        <select value={filter.log} onChange={(e) => set({ log: e.target.value })} aria-label="log filter">
          <option value="">all logs</option>
          {(data?.logs ?? []).map((l) => (
            <option key={l.name} value={l.name}>
              {l.name}
            </option>
          ))}
        </select>
        <select
          value={filter.principal}
          onChange={(e) => set({ principal: e.target.value })}
          aria-label="principal filter"
        >
          <option value="">all principals</option>
          {principalsOf(data?.events ?? []).map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <input
          value={filter.action}
          onChange={(e) => set({ action: e.target.value })}
          placeholder="filter action or target"
          aria-label="action filter"
        />
        <select
          value={filter.decision}
          onChange={(e) => set({ decision: e.target.value as AuditFilter['decision'] })}
          aria-label="decision filter"
        >
          <option value="all">all decisions</option>
          <option value="allow">allow</option>
          <option value="deny">deny</option>
        </select>
        <span className="muted" role="status">
          {rows.length} of {data?.events.length ?? 0}
        </span>
      </div>
      <table className="timeline">
        <thead>
          <tr>
            <th>Time</th>
            <th>Log</th>
            <th>Principal</th>
            <th>Action</th>
            <th>Target</th>
            <th>Decision</th>
            <th>Rule / code</th>
            <th>Details</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e, i) => (
            <tr
              key={e.hash ?? `${e.log}-${i}`}
              data-action={e.action}
              data-log={e.log}
              className={e.decision === 'deny' ? 'denied' : ''}
            >
              <td>{e.time.slice(11, 19)}</td>
              <td className="muted">{e.log}</td>
              <td>{principalName(e)}</td>
              <td>
                <code>{e.action}</code>
              </td>
              <td className="target">{e.target}</td>
              <td>
                <span className={e.decision === 'allow' ? 'badge ok' : 'badge deny'}>{e.decision}</span>
              </td>
              <td className="rule">
                {[e.rule, e.code].filter(Boolean).join(' · ')}
                <DenialRule row={e} policies={data?.policies} />
              </td>
              <td className="details">{e.details ? JSON.stringify(e.details) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Verified, broken (where and why), or not a chain at all: never claims more than the server checked. */
function ChainBadge({ chain }: { chain: ChainStatus | null }) {
  if (chain === null)
    return (
      <span className="badge chain" data-chain="none">
        not hash-chained
      </span>
    );
  if (chain.ok)
    return (
      <span className="badge ok chain" data-chain="ok">
        chain verified ({chain.count})
      </span>
    );
  return (
    <span className="badge deny chain" data-chain="broken">
      chain NOT verified{chain.brokenAt !== undefined ? ` at #${chain.brokenAt}` : ''}: {chain.reason ?? ''}
    </span>
  );
}
