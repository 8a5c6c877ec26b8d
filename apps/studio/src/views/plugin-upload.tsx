import { useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useStudio } from '../studio-context';
import { bytesToBase64 } from '../plugin-types';
import type { PluginReport } from '../types';

/** The server's cap (PLUGIN_UPLOAD_MAX_BYTES); checked here only to answer early, the server decides. */
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * Sends a `.tpkg` file's bytes to the server, which reads, verifies and unpacks it with the
 * package code (never the browser). A refusal is shown in place with its code.
 */
export function PluginUpload({ onUploaded }: { onUploaded(): void }) {
  const { api } = useStudio();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [added, setAdded] = useState<PluginReport>();
  const upload = async (file: File) => {
    setBusy(true);
    setError(undefined);
    setAdded(undefined);
    try {
      if (file.size > MAX_BYTES)
        throw new ApiError(413, 'CONTROL_BODY_TOO_LARGE', `${file.name} is ${file.size} bytes, over ${MAX_BYTES}`);
      const data = bytesToBase64(new Uint8Array(await file.arrayBuffer()));
      const r = await api.send<{ plugin: PluginReport }>('POST', '/plugins/upload', { fileName: file.name, data });
      setAdded(r.plugin);
      onUploaded();
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="plugin-upload">
      <label>
        Add a package (<code>.tpkg</code>, at most 4 MiB):{' '}
        <input
          type="file"
          className="upload-input"
          accept=".tpkg,application/gzip"
          disabled={busy}
          onChange={(e) => {
            const f = (e.target as HTMLInputElement).files?.[0];
            if (f) void upload(f);
            (e.target as HTMLInputElement).value = '';
          }}
        />
      </label>
      <div className="upload-status">
        {busy ? <p className="muted">Checking the package…</p> : null}
        <ErrorNote error={error} />
        {added ? (
          <p className="note" role="status">
            Added <code>{added.name}</code> ({added.signature?.status ?? 'unsigned'}); it is inspected below.
          </p>
        ) : null}
      </div>
    </div>
  );
}
