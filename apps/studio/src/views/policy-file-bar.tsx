import { useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useStudio } from '../studio-context';

/** The host's policy file as `GET /policy/file` answers it. */
interface PolicyFile {
  readonly path: string;
  readonly exists: boolean;
  readonly text: string;
  readonly sha256: string | null;
}

/**
 * Opens the workspace's egress policy file (the one plugins with network grants run under) into
 * the editor and saves the editor's text back. A save carries the hash of the version it was
 * opened from: the server refuses it (409) when the file changed meanwhile, and refuses a text the
 * validator rejects; nothing is written then.
 */
export function PolicyFileBar({ text, onOpen }: { text: string; onOpen: (text: string) => void }) {
  const { api } = useStudio();
  const [file, setFile] = useState<PolicyFile>();
  const [saved, setSaved] = useState<string>();
  const [error, setError] = useState<ApiError>();
  const fail = (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));
  const open = () =>
    api.get<PolicyFile>('/policy/file').then((f) => {
      setFile(f);
      setSaved(undefined);
      setError(undefined);
      if (f.exists) onOpen(f.text);
    }, fail);
  const save = () => {
    if (file === undefined) return;
    api.send<{ sha256: string }>('PUT', '/policy/file', { text, sha256: file.sha256 }).then((r) => {
      setFile({ ...file, exists: true, text, sha256: r.sha256 });
      setSaved(`saved to ${file.path}`);
      setError(undefined);
    }, fail);
  };
  return (
    <div className="policy-file">
      <button type="button" onClick={open}>
        Open workspace policy
      </button>
      <button type="button" onClick={save} disabled={file === undefined} data-save-policy="">
        Save
      </button>
      {file ? (
        <span className="muted" data-policy-file={file.path}>
          {file.exists ? file.path : `${file.path} (new: Save creates it)`}
        </span>
      ) : (
        <span className="muted">open the workspace's egress-policy.json (the policy network plugins run under)</span>
      )}
      {saved ? (
        <span className="ok-note" role="status">
          {saved}
        </span>
      ) : null}
      <ErrorNote error={error} />
    </div>
  );
}
