import { Markdown } from '../markdown';
import { ErrorNote, useLoad } from '../studio-context';
import type { MessageView } from '../types';

/** Inbox or outbox. Message content comes from the network: sanitised markdown only. */
export function MessagesPanel({ agent, box }: { agent: string; box: 'inbox' | 'outbox' }) {
  const { data, error } = useLoad<{ messages: MessageView[] }>(`/agents/${encodeURIComponent(agent)}/${box}`);
  return (
    <div className="messages">
      <ErrorNote error={error} />
      {data?.messages.length === 0 ? (
        <p className="muted empty">
          {box === 'inbox'
            ? 'No messages received. Inbound mail is off until messaging.receive is set in Tools & config.'
            : 'No messages sent yet.'}
        </p>
      ) : null}
      {(data?.messages ?? []).map((m) => (
        <article key={m.id} className="message" data-message={m.id}>
          <header>
            <span className="from">{m.from}</span> → <span className="to">{m.to}</span>
            {m.subject ? <strong> {m.subject}</strong> : null}
            {m.status ? <span className="badge">{m.status}</span> : null}
            {Object.entries(m.stamps ?? {}).map(([k, v]) => (
              <span key={k} className={v === true ? 'badge ok' : 'badge'}>
                {k}
              </span>
            ))}
          </header>
          <Markdown text={m.content} />
        </article>
      ))}
    </div>
  );
}
