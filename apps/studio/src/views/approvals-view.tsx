import { useEffect, useRef, useState } from 'react';
import { approvalKeyAction, moveSelection } from '../approval-keys';
import { ErrorNote, useLoad } from '../studio-context';
import type { ApprovalTask } from '../types';
import { TaskCard, type TaskCardHandle } from './task-card';

/** approved and completed read as allowed, denied and failed as refused; the rest are neutral. */
const STATUS_BADGE: Partial<Record<string, string>> = {
  approved: 'badge ok',
  completed: 'badge ok',
  denied: 'badge deny',
  failed: 'badge deny',
};

/** Pending approval tasks of every agent, live through the event stream, answerable from the keyboard. */
export function ApprovalsView() {
  const { data, error, reload } = useLoad<{ tasks: ApprovalTask[] }>('/tasks');
  const pending = (data?.tasks ?? []).filter((t) => t.status === 'pending');
  const done = (data?.tasks ?? []).filter((t) => t.status !== 'pending');
  const [selected, setSelected] = useState(0);
  const [help, setHelp] = useState(false);
  const cards = useRef(new Map<string, TaskCardHandle>());
  const key = (t: ApprovalTask) => `${t.agent}/${t.id}`;
  const index = Math.min(selected, Math.max(0, pending.length - 1));
  const current = pending[index];
  const firstKey = pending[0] === undefined ? undefined : key(pending[0]);

  // The first waiting request takes the focus when it arrives, so the keys work at once.
  useEffect(() => {
    const active = document.activeElement;
    const idle = active === null || active === document.body || active.closest('nav') !== null;
    if (firstKey !== undefined && idle) cards.current.get(firstKey)?.focus();
  }, [firstKey]);

  // The keys work anywhere while this view is shown (not while typing in a field).
  const onKey = useRef<(e: KeyboardEvent) => void>(() => undefined);
  onKey.current = (e: KeyboardEvent) => {
    const target = e.target instanceof HTMLElement ? e.target : document.body;
    const action = approvalKeyAction(e.key, target, { ctrl: e.ctrlKey, meta: e.metaKey, alt: e.altKey });
    if (action === undefined) return;
    if (action === 'help') {
      e.preventDefault();
      setHelp((h) => !h);
      return;
    }
    if (current === undefined) return;
    const card = cards.current.get(key(current));
    e.preventDefault();
    if (action === 'escape') card?.cancel();
    else if (action === 'next' || action === 'previous') {
      const next = moveSelection(index, pending.length, action);
      setSelected(next);
      cards.current.get(key(pending[next]!))?.focus();
    } else if (action === 'approve') card?.approve();
    else if (action === 'deny') card?.deny();
    else if (action === 'edit-args') card?.focusArgs();
    else card?.focusFeedback();
  };
  useEffect(() => {
    const listener = (e: KeyboardEvent) => onKey.current(e);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  return (
    <section className="approvals">
      <header className="view-head">
        <h2>Approvals</h2>
        <button type="button" className="link" onClick={() => setHelp((h) => !h)} aria-expanded={help}>
          Keyboard (?)
        </button>
      </header>
      {help ? (
        <p className="note keys" role="note">
          <kbd>j</kbd>/<kbd>k</kbd> or arrows: next/previous request · <kbd>a</kbd>: approve · <kbd>d</kbd>: deny (with
          the feedback typed) · <kbd>e</kbd>: edit the arguments · <kbd>f</kbd>: write feedback · dangerous tools ask
          again: <kbd>Enter</kbd> confirms, <kbd>Esc</kbd> cancels
        </p>
      ) : null}
      <ErrorNote error={error} />
      {data !== undefined && pending.length === 0 ? (
        <div className="empty">
          <p>Nothing waits for you.</p>
          <p className="muted">
            When an agent calls a tool marked <em>restricted</em> from its loop, the request waits here for your answer.
            Mark tools restricted in Tools &amp; config; talk to an agent in Agents.
          </p>
        </div>
      ) : null}
      {pending.map((t, i) => (
        <TaskCard
          key={key(t)}
          ref={(h) => {
            if (h === null) cards.current.delete(key(t));
            else cards.current.set(key(t), h);
          }}
          task={t}
          selected={i === index}
          onSelect={() => setSelected(i)}
          onDone={reload}
        />
      ))}
      {done.length > 0 ? (
        <>
          <h3>Decided</h3>
          <table>
            <thead>
              <tr>
                <th>Agent</th>
                <th>Tool</th>
                <th>Decision</th>
                <th>Feedback</th>
              </tr>
            </thead>
            <tbody>
              {done.map((t) => (
                <tr key={key(t)}>
                  <td>{t.agent}</td>
                  <td>
                    <code>{t.tool}</code>
                  </td>
                  <td>
                    <span className={STATUS_BADGE[t.status] ?? 'badge'}>{t.status}</span>
                  </td>
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
