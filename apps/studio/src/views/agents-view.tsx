import { useState } from 'react';
import type { ApiError } from '../api';
import { ErrorNote, useLoad, useStudio } from '../studio-context';
import type { AgentSummary } from '../types';
import { ChatPanel } from './chat-panel';
import { FilesPanel } from './files-panel';
import { MessagesPanel } from './messages-panel';
import { AGENT_DETAIL_TABS, AgentDetailTab, TemplateCreate, type AgentDetailTabName } from './agent-detail-tabs';

/** The agents of the workspace with their state, and the selected agent's chat, mail and files. */
export function AgentsView() {
  const { api, agent, selectAgent } = useStudio();
  const list = useLoad<{ agents: AgentSummary[] }>('/agents');
  const [tab, setTab] = useState<'chat' | 'inbox' | 'outbox' | 'files' | AgentDetailTabName>('chat');
  const [name, setName] = useState('');
  const [error, setError] = useState<ApiError>();
  const current = list.data?.agents.find((a) => a.id === agent);

  const act = (p: Promise<unknown>) =>
    p.then(
      () => {
        setError(undefined);
        list.reload();
      },
      (e: unknown) => setError(e as ApiError),
    );

  return (
    <section className="split">
      <aside className="list">
        <h2>Agents</h2>
        {list.data?.agents.length === 0 ? (
          <p className="muted empty">
            No agents yet. Type a name below and press Create; the new agent starts with safe defaults (shell and
            network tools off).
          </p>
        ) : null}
        <ul>
          {(list.data?.agents ?? []).map((a) => (
            <li key={a.id}>
              <button type="button" className={a.id === agent ? 'row active' : 'row'} onClick={() => selectAgent(a.id)}>
                <span className="name">{a.name}</span>
                <span className={`badge state-${a.state}`}>{a.state}</span>
                {a.pendingApprovals ? <span className="badge warn">{a.pendingApprovals} to approve</span> : null}
              </button>
            </li>
          ))}
        </ul>
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim() !== '') act(api.send('POST', '/agents', { name: name.trim() })).then(() => setName(''));
          }}
        >
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="new agent name"
            aria-label="new agent name"
          />
          <button type="submit">Create</button>
        </form>
        <TemplateCreate
          onCreated={(id) => {
            list.reload();
            selectAgent(id);
          }}
        />
        <ErrorNote error={error ?? list.error} />
      </aside>
      <div className="detail">
        {current === undefined ? (
          <p className="muted empty">
            {list.data?.agents.length === 0 ? 'Create an agent to start.' : 'Select an agent on the left.'}
          </p>
        ) : (
          <>
            <header className="detail-head">
              <h2>{current.name}</h2>
              <span className={`badge state-${current.state}`}>{current.state}</span>
              <button
                type="button"
                onClick={() => act(api.send('POST', `/agents/${encodeURIComponent(current.id)}/start`, {}))}
              >
                Start
              </button>
              <button
                type="button"
                onClick={() => act(api.send('POST', `/agents/${encodeURIComponent(current.id)}/stop`, {}))}
              >
                Stop
              </button>
            </header>
            <div className="tabs">
              {(['chat', 'inbox', 'outbox', 'files', ...AGENT_DETAIL_TABS] as const).map((t) => (
                <button type="button" key={t} className={t === tab ? 'tab active' : 'tab'} onClick={() => setTab(t)}>
                  {t}
                </button>
              ))}
            </div>
            {tab === 'chat' && <ChatPanel agent={current.id} />}
            {tab === 'inbox' && <MessagesPanel agent={current.id} box="inbox" />}
            {tab === 'outbox' && <MessagesPanel agent={current.id} box="outbox" />}
            {tab === 'files' && <FilesPanel agent={current.id} />}
            <AgentDetailTab tab={tab} agent={current.id} />
          </>
        )}
      </div>
    </section>
  );
}
