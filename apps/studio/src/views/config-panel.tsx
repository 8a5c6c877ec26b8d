import { useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useStudio } from '../studio-context';
import { configLeafPaths, parseConfigValue } from '../config-paths';
import type { ConfigView } from '../types';

/** The config with what the agent may not change, and the owner's update form. Errors show under the form. */
export function ConfigPanel({ base, view, reload }: { base: string; view: ConfigView; reload(): void }) {
  const { api } = useStudio();
  const [path, setPath] = useState('');
  const [value, setValue] = useState('');
  const [error, setError] = useState<ApiError>();
  const [done, setDone] = useState<string>();
  const paths = configLeafPaths(view.config);

  const update = () => {
    setDone(undefined);
    api.send('PATCH', `${base}/config`, { path, value: parseConfigValue(value) }).then(
      () => {
        setError(undefined);
        setDone(`${path} updated (audited)`);
        reload();
      },
      (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e))),
    );
  };

  return (
    <div className="config">
      <pre className="plain config-json">{JSON.stringify(withoutTools(view.config), null, 2)}</pre>
      <div>
        <h4>Locked fields (the agent may only ask)</h4>
        <ul>
          {view.lockedFields.map((l) => (
            <li key={l.path}>
              <code>{l.path}</code> — {l.why}
            </li>
          ))}
        </ul>
        <h4>Guard paths (never writable by the agent)</h4>
        <ul>
          {view.guardPaths.map((g) => (
            <li key={g.path}>
              <code>{g.path}</code> — {g.why}
            </li>
          ))}
        </ul>
        <h4>Change a value</h4>
        <form
          className="inline config-form"
          onSubmit={(e) => {
            e.preventDefault();
            update();
          }}
        >
          <input
            value={path}
            onChange={(e) => setPath(e.target.value)}
            placeholder="limits.max_active_turns"
            aria-label="config path"
            list="config-paths"
          />
          <datalist id="config-paths">
            {paths.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
          <input value={value} onChange={(e) => setValue(e.target.value)} placeholder="20" aria-label="config value" />
          <button type="submit">Set (owner, audited)</button>
        </form>
        <div className="form-result">
          <ErrorNote error={error} />
          {done !== undefined && error === undefined ? (
            <p className="note" role="status">
              {done}
            </p>
          ) : null}
        </div>
      </div>
    </div>
  );
}

/** The config minus `tools`, which the matrix above already shows. */
function withoutTools(config: unknown): unknown {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return config;
  const { tools: _tools, ...rest } = config as Record<string, unknown>;
  return { ...rest, tools: '(see the matrix above)' };
}
