import { useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useLoad, useStudio } from '../studio-context';
import type { ApprovalTask } from '../types';

/** approved and completed read as allowed, denied and failed as refused; the rest are neutral. */
const STATUS_BADGE: Partial<Record<string, string>> = { approved: 'badge ok', completed: 'badge ok', denied: 'badge deny', failed: 'badge deny' };

/** Pending approval tasks of every agent, live through the event stream. */
export function ApprovalsView() {
  const { data, error, reload } = useLoad<{ tasks: ApprovalTask[] }>('/tasks');
  const pending = (data?.tasks ?? []).filter((t) => t.status === 'pending');
  const done = (data?.tasks ?? []).filter((t) => t.status !== 'pending');
  return (
    <section>
      <h2>Approvals</h2>
      <ErrorNote error={error} />
      {pending.length === 0 ? <p className="muted">Nothing waits for you.</p> : null}
      {pending.map((t) => (
        <TaskCard key={`${t.agent}/${t.id}`} task={t} onDone={reload} />
      ))}
      {done.length > 0 ? (
        <>
          <h3>Decided</h3>
          <table>
            <thead>
              <tr><th>Agent</th><th>Tool</th><th>Decision</th><th>Feedback</th></tr>
            </thead>
            <tbody>
              {done.map((t) => (
                <tr key={`${t.agent}/${t.id}`}>
                  <td>{t.agent}</td>
                  <td><code>{t.tool}</code></td>
                  <td><span className={STATUS_BADGE[t.status] ?? 'badge'}>{t.status}</span></td>
                  <td>{t.feedback ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}

/** One request: the exact tool, arguments (as text, never HTML) and reason, with the owner's answer. */
function TaskCard({ task, onDone }: { task: ApprovalTask; onDone(): void }) {
  const { api } = useStudio();
  const original = JSON.stringify(task.args, null, 2) ?? 'null';
  const [args, setArgs] = useState(original);
  const [feedback, setFeedback] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const base = `/agents/${encodeURIComponent(task.agent)}/tasks/${encodeURIComponent(task.id)}`;

  const approve = () => {
    let body: { args?: unknown } = {};
    if (args !== original) {
      try {
        body = { args: JSON.parse(args) as unknown };
      } catch {
        setError(new ApiError(0, 'ARGS_INVALID', 'the modified arguments are not valid JSON'));
        return;
      }
    }
    api.send('POST', `${base}/approve`, body).then(onDone, (e: unknown) => setError(e as ApiError));
  };
  const deny = () => api.send('POST', `${base}/deny`, feedback === '' ? {} : { feedback }).then(onDone, (e: unknown) => setError(e as ApiError));

  return (
    <article className="task" data-task={task.id}>
      <header>
        <span className="agent">{task.agent}</span> wants to call <code className="tool">{task.tool}</code>
        <time>{task.createdAt.slice(11, 19)}</time>
      </header>
      <p className="reason">{task.reason}</p>
      <label className="stack">
        Arguments (edit to approve with modified arguments)
        <textarea className="args" value={args} onChange={(e) => setArgs(e.target.value)} rows={Math.min(12, original.split('\n').length + 1)} spellCheck={false} />
      </label>
      <label className="stack">
        Feedback to the agent (sent on deny)
        <input value={feedback} onChange={(e) => setFeedback(e.target.value)} placeholder="why not, or what to do instead" />
      </label>
      <div className="actions">
        <button className="approve" onClick={approve}>
          {args === original ? 'Approve' : 'Approve modified'}
        </button>
        <button className="deny" onClick={() => void deny()}>
          Deny
        </button>
      </div>
      <ErrorNote error={error} />
    </article>
  );
}
