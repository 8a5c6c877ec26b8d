import { ErrorNote, useLoad } from '../studio-context';
import type { MeshView, RuntimeView } from '../agent-detail-types';

const json = (v: unknown) => JSON.stringify(v);
const LIVE_BADGE: Record<string, string> = { connected: 'badge ok', failed: 'badge deny', disconnected: 'badge warn' };
const LIVE_LABEL: Record<string, string> = { 'not-started': 'not started', 'agent-not-running': 'agent not running' };

/** Read-only: what wakes the agent (triggers, timers), its MCP servers, identity and review, and the mesh. */
export function RuntimePanels({ agent }: { agent: string }) {
  const rt = useLoad<{ runtime: RuntimeView }>(`/agents/${encodeURIComponent(agent)}/runtime`);
  const mesh = useLoad<MeshView>('/mesh');
  const r = rt.data?.runtime;
  const reviewBadge = r?.identity.review === 'signed' ? 'badge ok' : 'badge warn';
  return (
    <div className="runtime-panels">
      <ErrorNote error={rt.error} />
      {r === undefined ? null : (
        <>
          <section className="panel" data-panel="identity">
            <h3>Identity and review</h3>
            <dl>
              <dt>DID</dt>
              <dd>{r.identity.did ?? <span className="muted">no identity yet (the runtime provisions one)</span>}</dd>
              <dt>Review</dt>
              <dd>
                <span className={reviewBadge}>{r.identity.review}</span>{' '}
                {r.identity.ownerDid ? <>by {r.identity.ownerDid}</> : null}
              </dd>
              <dt>Content hash</dt>
              <dd>
                <code>{r.identity.contentHash}</code>
              </dd>
              <dt>Mail</dt>
              <dd>
                {r.messaging.receive ? 'receives' : 'does not receive'} · {r.messaging.mode} · visible to{' '}
                {r.messaging.visibility}
              </dd>
            </dl>
          </section>
          <section className="panel" data-panel="triggers">
            <h3>Triggers</h3>
            {r.triggers.length === 0 ? (
              <p className="muted empty">No triggers: the agent only runs when you chat with it.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th>Type</th>
                    <th>Scope</th>
                    <th>Filter</th>
                    <th>Timing</th>
                  </tr>
                </thead>
                <tbody>
                  {r.triggers.map((t) => (
                    <tr key={JSON.stringify(t)}>
                      <td>{t.type}</td>
                      <td>{t.scope === 'system' ? `system: ${t.lambda ?? '?'}` : 'agent (wakes the loop)'}</td>
                      <td>{t.filter ? json(t.filter) : '—'}</td>
                      <td>{t.timing ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section className="panel" data-panel="timers">
            <h3>Timers</h3>
            {r.timers.length === 0 ? (
              <p className="muted empty">No timers. The agent sets them with sys_set_timer.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th>#</th>
                    <th>Schedule</th>
                    <th>Next wake</th>
                    <th>Runs</th>
                    <th>State</th>
                  </tr>
                </thead>
                <tbody>
                  {r.timers.map((t) => (
                    <tr key={t.id}>
                      <td>{t.id}</td>
                      <td>
                        <code>{json(t.schedule)}</code>
                      </td>
                      <td>{t.nextWakeAt ?? '—'}</td>
                      <td>{t.runCount}</td>
                      <td>{[t.expired ? 'expired' : 'active', t.locked ? 'locked' : ''].filter(Boolean).join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section className="panel" data-panel="mcp">
            <h3>MCP servers</h3>
            {r.mcp.length === 0 ? (
              <p className="muted empty">No MCP servers. Add one under mcp.servers in the config.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Runs</th>
                    <th>Capabilities</th>
                    <th>Config</th>
                    <th>Live</th>
                  </tr>
                </thead>
                <tbody>
                  {r.mcp.map((m) => (
                    <tr key={m.name}>
                      <td>
                        {m.name}
                        {m.restricted ? <span className="badge warn">restricted</span> : null}
                      </td>
                      <td>
                        {m.transport}: <code>{m.target}</code>
                      </td>
                      <td>{m.capabilities.length === 0 ? 'none' : m.capabilities.join(', ')}</td>
                      <td>{m.status}</td>
                      <td data-mcp-live={m.live.state}>
                        <span className={LIVE_BADGE[m.live.state] ?? 'badge'}>
                          {LIVE_LABEL[m.live.state] ?? m.live.state}
                        </span>{' '}
                        <span className="muted">{m.live.detail}</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
      <section className="panel" data-panel="mesh">
        <h3>Mesh: who talks to whom</h3>
        <ErrorNote error={mesh.error} />
        {mesh.data?.edges.length === 0 ? (
          <p className="muted empty">No mail between agents yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>From</th>
                <th />
                <th>To</th>
                <th>Messages</th>
                <th>Last</th>
              </tr>
            </thead>
            <tbody>
              {(mesh.data?.edges ?? []).map((e) => (
                <tr key={`${e.from}|${e.to}`} className={e.from === agent || e.to === agent ? 'mine' : ''}>
                  <td>{e.from}</td>
                  <td aria-hidden="true">→</td>
                  <td>{e.to}</td>
                  <td>{e.count}</td>
                  <td>{e.last}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
