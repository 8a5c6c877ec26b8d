import { useState } from 'react';
import type { ApiError } from '../api';
import { Markdown } from '../markdown';
import { ErrorNote, useLoad, useStudio } from '../studio-context';
import type { AgentFile } from '../types';

const encodePath = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** The agent's files; the owner marks a file authorized (it may then run as authorized code). */
export function FilesPanel({ agent }: { agent: string }) {
  const { api } = useStudio();
  const base = `/agents/${encodeURIComponent(agent)}`;
  const { data, error, reload } = useLoad<{ files: AgentFile[] }>(`${base}/files`);
  const [open, setOpen] = useState<string>();
  const file = useLoad<{ file: { path: string; content: string } }>(
    open === undefined ? undefined : `${base}/files/${encodePath(open)}`,
  );
  const [err, setErr] = useState<ApiError>();

  const toggle = (f: AgentFile) =>
    api.send('PUT', `${base}/authorized/${encodePath(f.path)}`, { authorized: !f.authorized }).then(
      () => {
        setErr(undefined);
        reload();
      },
      (e: unknown) => setErr(e as ApiError),
    );

  return (
    <div className="files">
      <ErrorNote error={err ?? error} />
      {data?.files.length === 0 ? (
        <p className="muted empty">
          No files yet. The agent writes files with fs_write; they appear here, and you decide which may run as
          authorized code.
        </p>
      ) : null}
      <table>
        <thead>
          <tr>
            <th>Path</th>
            <th>Size</th>
            <th>Protection</th>
            <th>Authorized</th>
          </tr>
        </thead>
        <tbody>
          {(data?.files ?? []).map((f) => (
            <tr key={f.path}>
              <td>
                <button type="button" className="link" onClick={() => setOpen(f.path)}>
                  {f.path}
                </button>
              </td>
              <td>{f.size}</td>
              <td>{f.protection ?? '—'}</td>
              <td>
                <label>
                  <input type="checkbox" checked={f.authorized} onChange={() => void toggle(f)} />{' '}
                  {f.authorized ? 'authorized' : 'no'}
                </label>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {file.data ? (
        <article className="file-view">
          <h3>{file.data.file.path}</h3>
          {/\.(md|markdown)$/i.test(file.data.file.path) ? (
            <Markdown text={file.data.file.content} />
          ) : (
            <pre className="plain">{file.data.file.content}</pre>
          )}
        </article>
      ) : null}
      <ErrorNote error={file.error} />
    </div>
  );
}
