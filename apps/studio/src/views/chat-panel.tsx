import { useState } from 'react';
import type { ApiError } from '../api';
import { compactionOf } from '../compaction-marker';
import { Markdown } from '../markdown';
import { ErrorNote, useLoad, useStudio } from '../studio-context';
import type { LoopTurn } from '../types';

/** The loop history (model and tool text as sanitised markdown) and the owner's message box. */
export function ChatPanel({ agent }: { agent: string }) {
  const { api } = useStudio();
  const path = `/agents/${encodeURIComponent(agent)}`;
  const history = useLoad<{ turns: LoopTurn[] }>(`${path}/chat`);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();

  const send = async () => {
    setBusy(true);
    try {
      await api.send('POST', `${path}/chat`, { text });
      setText('');
      setError(undefined);
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
      history.reload();
    }
  };

  return (
    <div className="chat">
      {history.data?.turns.length === 0 ? (
        <p className="muted empty">
          No conversation yet. Write a message below; when the agent wants a restricted tool, the request appears in
          Approvals.
        </p>
      ) : null}
      <ol className="turns">
        {(history.data?.turns ?? []).map((t) => {
          const compaction = compactionOf(t);
          // Where the window was compacted: the model is sent this summary instead of the turns before it.
          return compaction ? (
            <li key={t.seq} className="turn compaction" data-role="compaction">
              <div className="turn-head">
                <span className="role">
                  compacted · {compaction.messages} earlier messages{' '}
                  {compaction.kind === 'model' ? 'summarised by the model' : 'truncated'}
                </span>
                <time>{t.time.slice(11, 19)}</time>
              </div>
              <p className="plain">{compaction.text}</p>
            </li>
          ) : (
            <li key={t.seq} className={`turn ${t.role}`} data-role={t.role}>
              <div className="turn-head">
                <span className="role">{t.role}</span>
                {t.tool ? (
                  <code className="tool">
                    {t.tool.name}
                    {t.tool.status ? ` · ${t.tool.status}` : ''}
                  </code>
                ) : null}
                <time>{t.time.slice(11, 19)}</time>
              </div>
              {t.role === 'user' ? (
                <p className="plain">{t.content}</p>
              ) : t.content !== '' ? (
                <Markdown text={t.content} />
              ) : null}
              {t.tool?.args !== undefined ? (
                <pre className="plain args">{JSON.stringify(t.tool.args, null, 2)}</pre>
              ) : null}
            </li>
          );
        })}
      </ol>
      <ErrorNote error={error ?? history.error} />
      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim() !== '' && !busy) void send();
        }}
      >
        <textarea
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Message the agent"
          aria-label="message"
          rows={2}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Sending…' : 'Send'}
        </button>
      </form>
    </div>
  );
}
