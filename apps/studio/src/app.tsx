import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, createApi } from './api';
import { StudioContext, type Studio } from './studio-context';
import { abortableSleep, runLiveStream } from './live-stream';
import { forgetToken, takeToken } from './token';
import { AgentsView } from './views/agents-view';
import { ApprovalsView } from './views/approvals-view';
import { AuditView } from './views/audit-view';
import { NotAuthorised } from './views/not-authorised';
import { PendingBadge } from './views/pending-badge';
import { PluginsView } from './views/plugins-view';
import { PolicyView } from './views/policy-view';
import { SandboxView } from './views/sandbox-view';
import { ToolsView } from './views/tools-view';

const VIEWS = [
  ['agents', 'Agents'],
  ['approvals', 'Approvals'],
  ['tools', 'Tools & config'],
  ['audit', 'Audit'],
  ['policy', 'Policy'],
  ['plugins', 'Plugins'],
  ['sandbox', 'Sandbox runs'],
] as const;
type ViewId = (typeof VIEWS)[number][0];

export function App() {
  const [token] = useState(() => takeToken());
  const [auth, setAuth] = useState<'checking' | 'ok' | 'denied'>(token === undefined ? 'denied' : 'checking');
  const [view, setView] = useState<ViewId>('agents');
  const [tick, setTick] = useState(0);
  const [agent, setAgent] = useState<string>();
  const [live, setLive] = useState(false);
  const api = useMemo(() => (token === undefined ? undefined : createApi(token)), [token]);
  const onDenied = useCallback(() => {
    forgetToken();
    setAuth('denied');
  }, []);

  useEffect(() => {
    if (api === undefined) return;
    api.get<{ agents: { id: string }[] }>('/agents').then(
      (r) => {
        setAuth('ok');
        setAgent((a) => a ?? r.agents[0]?.id);
      },
      (e: unknown) => (e instanceof ApiError && e.status === 401 ? onDenied() : setAuth('ok')),
    );
  }, [api, onDenied]);

  useEffect(() => {
    if (api === undefined || auth !== 'ok') return;
    const ac = new AbortController();
    // Reconnect with a growing pause (1 s to 30 s) when the stream drops; stop on 401 or unmount.
    void runLiveStream(
      {
        connect: (signal) => {
          setTick((t) => t + 1);
          // Streamed model text (`delta`) and log rows (`log`) are shown by their own views, not a
          // reason to reload every view.
          return api.events((e) => {
            if (e.kind !== 'delta' && e.kind !== 'log') setTick((t) => t + 1);
          }, signal);
        },
        isDenied: (e) => e instanceof ApiError && e.status === 401,
        onLive: setLive,
        onDenied,
        sleep: abortableSleep,
      },
      ac.signal,
    );
    return () => ac.abort();
  }, [api, auth, onDenied]);

  const studio = useMemo<Studio | undefined>(
    () => (api === undefined ? undefined : { api, tick, agent, selectAgent: setAgent, onDenied }),
    [api, tick, agent, onDenied],
  );

  if (auth === 'denied' || studio === undefined) return <NotAuthorised />;
  if (auth === 'checking') return <p className="checking">Checking access…</p>;
  return (
    <StudioContext.Provider value={studio}>
      <div className="shell">
        <nav className="nav">
          <h1>trust studio</h1>
          {VIEWS.map(([id, label]) => (
            <button
              type="button"
              key={id}
              className={id === view ? 'nav-item active' : 'nav-item'}
              onClick={() => setView(id)}
              data-view={id}
            >
              {label}
              {id === 'approvals' ? <PendingBadge /> : null}
            </button>
          ))}
          <p className={live ? 'live on' : 'live'}>{live ? 'live' : 'offline'}</p>
        </nav>
        <main className="main">
          {view === 'agents' && <AgentsView />}
          {view === 'approvals' && <ApprovalsView />}
          {view === 'tools' && <ToolsView />}
          {view === 'audit' && <AuditView />}
          {view === 'policy' && <PolicyView />}
          {view === 'plugins' && <PluginsView />}
          {view === 'sandbox' && <SandboxView />}
        </main>
      </div>
    </StudioContext.Provider>
  );
}
