import { useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useStudio } from '../studio-context';
import { confirmationFor, toolRisk, visibilityNote, type ToolFlag } from '../tool-risk';
import type { ToolRow } from '../types';

const FLAGS: readonly ToolFlag[] = ['enabled', 'visible', 'restricted', 'locked'];

/** The access matrix, editable by the owner. Errors and notes appear in the row they concern. */
export function ToolsMatrix({ base, tools, reload }: { base: string; tools: ToolRow[]; reload(): void }) {
  const { api } = useStudio();
  const [pending, setPending] = useState<{ row: ToolRow; flag: ToolFlag; question: string }>();
  const [rowError, setRowError] = useState<{ name: string; error: ApiError }>();
  const [changed, setChanged] = useState<string>();

  const send = (row: ToolRow, flag: ToolFlag) => {
    setPending(undefined);
    return api.send('PATCH', `${base}/tools/${encodeURIComponent(row.name)}`, { [flag]: !row[flag] }).then(
      () => {
        setRowError(undefined);
        setChanged(row.name);
        reload();
      },
      (e: unknown) =>
        setRowError({ name: row.name, error: e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)) }),
    );
  };
  const flip = (row: ToolRow, flag: ToolFlag) => {
    const question = confirmationFor(row, flag);
    if (question === undefined) void send(row, flag);
    else setPending({ row, flag, question });
  };

  return (
    <table className="matrix">
      <thead>
        <tr>
          <th>Tool</th>
          {FLAGS.map((f) => (
            <th key={f}>{f}</th>
          ))}
          <th>Why locked</th>
        </tr>
      </thead>
      <tbody>
        {tools.flatMap((t) => {
          const note = changed === t.name ? visibilityNote(t) : undefined;
          const risk = toolRisk(t.name);
          const rows = [
            <tr key={t.name} className={t.locked ? 'locked' : ''} data-tool={t.name}>
              <td>
                <code>{t.name}</code>
                {risk ? (
                  <span className="badge risk-high" title={risk}>
                    risky
                  </span>
                ) : null}
              </td>
              {FLAGS.map((f) => (
                <td key={f}>
                  <input type="checkbox" aria-label={`${t.name} ${f}`} checked={t[f]} onChange={() => flip(t, f)} />
                </td>
              ))}
              <td className="muted">{t.locked ? (t.lockedWhy ?? 'locked by the owner') : ''}</td>
            </tr>,
          ];
          if (pending?.row.name === t.name) {
            rows.push(
              <tr key={`${t.name}-confirm`} className="confirm-row">
                <td colSpan={6}>
                  <div className="confirm" role="alertdialog" aria-label={`confirm ${t.name}`}>
                    <span>{pending.question}</span>
                    <button
                      type="button"
                      className="deny"
                      // biome-ignore lint/a11y/noAutofocus: an alertdialog must take the focus when it opens
                      autoFocus
                      onClick={() => void send(pending.row, pending.flag)}
                    >
                      Enable anyway
                    </button>
                    <button type="button" onClick={() => setPending(undefined)}>
                      Cancel
                    </button>
                  </div>
                </td>
              </tr>,
            );
          }
          if (rowError?.name === t.name) {
            rows.push(
              <tr key={`${t.name}-error`}>
                <td colSpan={6}>
                  <ErrorNote error={rowError.error} />
                </td>
              </tr>,
            );
          }
          if (note !== undefined) {
            rows.push(
              <tr key={`${t.name}-note`}>
                <td colSpan={6}>
                  <p className="note warn-note" role="status">
                    {note}
                  </p>
                </td>
              </tr>,
            );
          }
          return rows;
        })}
      </tbody>
    </table>
  );
}
