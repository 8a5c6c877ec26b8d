import { useState } from 'react';
import { ErrorNote, useLoad, useStudio } from '../studio-context';
import type { AuditEvent, ChainStatus } from '../types';
import { AgentPicker } from './agent-picker';
import { AuditChart } from './audit-chart';

/** The agent's audit chain: verification status, a chart, and a filterable timeline. */
export function AuditView() {
  const { agent } = useStudio();
  const { data, error } = useLoad<{ events: AuditEvent[]; chain: ChainStatus }>(agent && `/agents/${encodeURIComponent(agent)}/audit`);
  const [decision, setDecision] = useState<'all' | 'allow' | 'deny'>('all');
  const [action, setAction] = useState('');
  const events = (data?.events ?? []).filter((e) => (decision === 'all' || e.decision === decision) && (action === '' || e.action.includes(action) || e.target.includes(action)));

  return (
    <section>
      <header className="view-head">
        <h2>Audit</h2>
        <AgentPicker />
        {data ? (
          <span className={data.chain.ok ? 'badge ok chain' : 'badge deny chain'} data-chain={data.chain.ok ? 'ok' : 'broken'}>
            {data.chain.ok ? `chain verified (${data.chain.count})` : `chain NOT verified${data.chain.brokenAt !== undefined ? ` at #${data.chain.brokenAt}` : ''}: ${data.chain.reason ?? ''}`}
          </span>
        ) : null}
      </header>
      <ErrorNote error={error} />
      <AuditChart events={data?.events ?? []} />
      <div className="filters">
        <select value={decision} onChange={(e) => setDecision(e.target.value as typeof decision)} aria-label="decision filter">
          <option value="all">all decisions</option>
          <option value="allow">allow</option>
          <option value="deny">deny</option>
        </select>
        <input value={action} onChange={(e) => setAction(e.target.value)} placeholder="filter action or target" aria-label="action filter" />
      </div>
      <table className="timeline">
        <thead>
          <tr><th>Time</th><th>Principal</th><th>Action</th><th>Target</th><th>Decision</th><th>Rule / code</th><th>Details</th></tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.hash} data-action={e.action}>
              <td>{e.time.slice(11, 19)}</td>
              <td>{e.principal.kind}:{e.principal.id}</td>
              <td><code>{e.action}</code></td>
              <td className="target">{e.target}</td>
              <td><span className={e.decision === 'allow' ? 'badge ok' : 'badge deny'}>{e.decision}</span></td>
              <td>{[e.rule, e.code].filter(Boolean).join(' · ')}</td>
              <td className="details">{e.details ? JSON.stringify(e.details) : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
