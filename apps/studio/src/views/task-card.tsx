import { forwardRef, useEffect, useImperativeHandle, useRef, useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useStudio } from '../studio-context';
import { toolRisk } from '../tool-risk';
import type { ApprovalTask } from '../types';

/** What the Approvals view's keyboard drives on the selected card. */
export interface TaskCardHandle {
  approve(): void;
  deny(): void;
  focusArgs(): void;
  focusFeedback(): void;
  focus(): void;
  /** Closes the confirmation, or leaves a text field: the keys go back to the card. */
  cancel(): void;
}

/**
 * One request: the exact tool, arguments (as text, never HTML) and reason, with the owner's
 * answer. Approving a restricted call of a dangerous tool asks once more (Enter confirms, Escape cancels).
 */
export const TaskCard = forwardRef<
  TaskCardHandle,
  { task: ApprovalTask; selected: boolean; onSelect(): void; onDone(): void }
>(function TaskCard({ task, selected, onSelect, onDone }, ref) {
  const { api } = useStudio();
  const original = JSON.stringify(task.args, null, 2) ?? 'null';
  const [args, setArgs] = useState(original);
  const [feedback, setFeedback] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const [confirming, setConfirming] = useState(false);
  const card = useRef<HTMLElement>(null);
  const argsRef = useRef<HTMLTextAreaElement>(null);
  const feedbackRef = useRef<HTMLInputElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  // The confirmation takes the focus, so Enter answers it and nothing else.
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);
  const risk = toolRisk(task.tool);
  const base = `/agents/${encodeURIComponent(task.agent)}/tasks/${encodeURIComponent(task.id)}`;
  const fail = (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));

  const send = () => {
    setConfirming(false);
    let body: { args?: unknown } = {};
    if (args !== original) {
      try {
        body = { args: JSON.parse(args) as unknown };
      } catch {
        setError(new ApiError(0, 'ARGS_INVALID', 'the modified arguments are not valid JSON'));
        return;
      }
    }
    api.send('POST', `${base}/approve`, body).then(onDone, fail);
  };
  const approve = () => (risk === undefined ? send() : setConfirming(true));
  const deny = () => api.send('POST', `${base}/deny`, feedback === '' ? {} : { feedback }).then(onDone, fail);

  useImperativeHandle(ref, () => ({
    approve,
    deny: () => void deny(),
    focusArgs: () => argsRef.current?.focus(),
    focusFeedback: () => feedbackRef.current?.focus(),
    focus: () => card.current?.focus(),
    cancel: () => {
      setConfirming(false);
      card.current?.focus();
    },
  }));

  return (
    <article
      ref={card}
      className={selected ? 'task selected' : 'task'}
      data-task={task.id}
      tabIndex={selected ? 0 : -1}
      aria-label={`${task.agent} wants to call ${task.tool}`}
      aria-current={selected ? 'true' : undefined}
      onFocus={onSelect}
    >
      <header>
        <span className="agent">{task.agent}</span> wants to call <code className="tool">{task.tool}</code>
        {risk ? <span className="badge risk-high">dangerous: {risk}</span> : null}
        <time>{task.createdAt.slice(11, 19)}</time>
      </header>
      <p className="reason">{task.reason}</p>
      <label className="stack">
        Arguments (edit to approve with modified arguments; key e)
        <textarea
          ref={argsRef}
          className="args"
          value={args}
          onChange={(e) => setArgs(e.target.value)}
          rows={Math.min(12, original.split('\n').length + 1)}
          spellCheck={false}
        />
      </label>
      <label className="stack">
        Feedback to the agent (sent on deny; key f)
        <input
          ref={feedbackRef}
          value={feedback}
          onChange={(e) => setFeedback(e.target.value)}
          placeholder="why not, or what to do instead"
        />
      </label>
      {confirming ? (
        <div className="confirm" role="alertdialog" aria-label={`confirm approving ${task.tool}`}>
          <span>
            {task.tool} {risk}. Approve this call{args === original ? '' : ' with your modified arguments'}?
          </span>
          <button type="button" ref={confirmRef} className="approve" onClick={send}>
            Yes, approve (Enter)
          </button>
          <button
            type="button"
            onClick={() => {
              setConfirming(false);
              card.current?.focus();
            }}
          >
            Cancel (Esc)
          </button>
        </div>
      ) : (
        <div className="actions">
          <button type="button" className="approve" onClick={approve} aria-keyshortcuts="a">
            {args === original ? 'Approve' : 'Approve modified'}
          </button>
          <button type="button" className="deny" onClick={() => void deny()} aria-keyshortcuts="d">
            Deny
          </button>
        </div>
      )}
      <ErrorNote error={error} />
    </article>
  );
});
