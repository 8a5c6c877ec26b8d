import { lazy, Suspense, useEffect, useState } from 'react';
import { ApiError } from '../api';
import { type EditableFile, encodeFilePath, saveBlocker, saveBody } from '../file-edit';
import { ErrorNote, useLoad, useStudio } from '../studio-context';
import type { AgentFile } from '../types';

// CodeMirror is loaded (from this server, like every script) only when the editor is opened.
const CodeEditor = lazy(() => import('./code-editor').then((m) => ({ default: m.CodeEditor })));

const toError = (e: unknown) => (e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));

/**
 * Edit the agent's files in a code editor. A save names the hash of what was read, so a file
 * changed meanwhile is refused (409) instead of overwritten; a read_only file opens read-only with
 * its code; every refusal shows under the editor.
 */
export function FileEditor({ agent }: { agent: string }) {
  const { api } = useStudio();
  const base = `/agents/${encodeURIComponent(agent)}`;
  const list = useLoad<{ files: AgentFile[] }>(`${base}/files`);
  const [path, setPath] = useState<string>();
  const [isNew, setIsNew] = useState(false);
  const [file, setFile] = useState<EditableFile>();
  const [maxBytes, setMaxBytes] = useState(48 * 1024);
  const [text, setText] = useState('');
  const [error, setError] = useState<ApiError>();
  const [saved, setSaved] = useState<string>();
  const [newPath, setNewPath] = useState('');

  // Loaded once per file (not on every live event), so typing is never overwritten.
  useEffect(() => {
    if (path === undefined || isNew) return;
    let live = true;
    api.get<{ file: EditableFile; maxBytes: number }>(`${base}/file-text/${encodeFilePath(path)}`).then(
      (d) => {
        if (!live) return;
        setFile(d.file);
        setText(d.file.content);
        setMaxBytes(d.maxBytes);
      },
      (e: unknown) => {
        if (live) setError(toError(e));
      },
    );
    return () => {
      live = false;
    };
  }, [api, base, path, isNew]);

  const choose = (p: string | undefined, fresh: boolean) => {
    setFile(undefined);
    setSaved(undefined);
    setError(undefined);
    setText('');
    setIsNew(fresh);
    setPath(p);
  };
  const save = () => {
    if (path === undefined) return;
    setSaved(undefined);
    api.send<{ file: EditableFile }>('PUT', `${base}/file-text/${encodeFilePath(path)}`, saveBody(file, text)).then(
      (d) => {
        setError(undefined);
        setIsNew(false);
        setFile(d.file);
        setText(d.file.content);
        setSaved(`${d.file.path} saved (${d.file.size} bytes, audited)`);
        list.reload();
      },
      (e: unknown) => setError(toError(e)),
    );
  };
  const blocked = path === undefined ? 'open a file' : saveBlocker(file, text, maxBytes);

  return (
    <div className="file-editor">
      <div className="inline">
        <label>
          File{' '}
          <select
            aria-label="file to edit"
            value={isNew ? '' : (path ?? '')}
            onChange={(e) => choose(e.target.value === '' ? undefined : e.target.value, false)}
          >
            <option value="">(choose a file)</option>
            {(list.data?.files ?? []).map((f) => (
              <option key={f.path} value={f.path}>
                {f.path}
              </option>
            ))}
          </select>
        </label>
        <form
          className="inline"
          onSubmit={(e) => {
            e.preventDefault();
            if (newPath.trim() === '') return;
            choose(newPath.trim(), true);
          }}
        >
          <input
            value={newPath}
            onChange={(e) => setNewPath(e.target.value)}
            placeholder="docs/new-note.md"
            aria-label="new file path"
          />
          <button type="submit">New file</button>
        </form>
      </div>
      <ErrorNote error={list.error} />
      {path !== undefined && (isNew || file !== undefined) ? (
        <>
          <h3 className="file-title">
            {path}
            {isNew ? <span className="badge">new</span> : null}
            {file !== undefined && !file.editable ? <span className="badge warn">read-only</span> : null}
          </h3>
          {file?.refused ? (
            <p className="note refused" role="status">
              <code>{file.refused.code}</code> {file.refused.reason}
            </p>
          ) : null}
          <Suspense fallback={<p className="muted">Loading the editor…</p>}>
            <CodeEditor
              path={path}
              value={file?.content ?? ''}
              readOnly={file !== undefined && !file.editable}
              label={`edit ${path}`}
              onChange={setText}
            />
          </Suspense>
          <div className="inline">
            <button type="button" onClick={save} disabled={blocked !== undefined}>
              Save (owner, audited)
            </button>
            {blocked !== undefined && blocked !== 'no change to save' ? <span className="muted">{blocked}</span> : null}
          </div>
        </>
      ) : null}
      <div className="form-result">
        <ErrorNote error={error} />
        {saved !== undefined && error === undefined ? (
          <p className="note" role="status">
            {saved}
          </p>
        ) : null}
      </div>
    </div>
  );
}
