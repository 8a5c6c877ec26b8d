import { useEffect, useState } from 'react';
import { foldStream } from '../stream-text';
import { useStudio } from '../studio-context';

/**
 * The model's answer while it streams, as plain text (never markdown: it is unfinished and
 * untrusted). It has its own event stream, so fragments do not reload the other views.
 */
export function StreamingText({ agent }: { agent: string }) {
  const { api } = useStudio();
  const [text, setText] = useState('');
  useEffect(() => {
    const ac = new AbortController();
    setText('');
    api.events((e) => setText((t) => foldStream(t, e, agent)), ac.signal).catch(() => undefined);
    return () => ac.abort();
  }, [api, agent]);
  if (text === '') return null;
  return (
    <div className="streaming" aria-live="polite">
      <span className="badge">streaming</span>
      <p className="plain">{text}</p>
    </div>
  );
}
