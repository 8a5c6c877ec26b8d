import { useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useLoad, useStudio } from '../studio-context';
import type { ConfigView, ToolRow } from '../types';
import { AgentPicker } from './agent-picker';

const FLAGS = ['enabled', 'visible', 'restricted', 'locked'] as const;

/** The access matrix, editable by the owner, and the config with what the agent may not change. */
export function ToolsView() {
  const { api, agent } = useStudio();
  const base = agent === undefined ? undefined : `/agents/${encodeURIComponent(agent)}`;
  const tools = useLoad<{ tools: ToolRow[] }>(base && `${base}/tools`);
  const config = useLoad<ConfigView>(base && `${base}/config`);
  const [path, setPath] = useState('');
  const [value, setValue] = useState('');
  const [error, setError] = useState<ApiError>();

  const flip = (row: ToolRow, flag: (typeof FLAGS)[number]) =>
    api.send('PATCH', `${base}/tools/${encodeURIComponent(row.name)}`, { [flag]: !row[flag] }).then(
      () => (setError(undefined), tools.reload()),
      (e: unknown) => setError(e as ApiError),
    );

  const update = () => {
    let parsed: unknown = value;
    try {
      parsed = JSON.parse(value);
    } catch {
      // Plain text is a string value.
    }
    api.send('PATCH', `${base}/config`, { path, value: parsed }).then(
      () => (setError(undefined), config.reload()),
      (e: unknown) => setError(e as ApiError),
    );
  };

  return (
    <section>
      <header className="view-head">
        <h2>Tools & config</h2>
        <AgentPicker />
      </header>
      <ErrorNote error={error ?? tools.error} />
      <table className="matrix">
        <thead>
          <tr><th>Tool</th>{FLAGS.map((f) => <th key={f}>{f}</th>)}<th>Why locked</th></tr>
        </thead>
        <tbody>
          {(tools.data?.tools ?? []).map((t) => (
            <tr key={t.name} className={t.locked ? 'locked' : ''}>
              <td><code>{t.name}</code></td>
              {FLAGS.map((f) => (
                <td key={f}>
                  <input type="checkbox" aria-label={`${t.name} ${f}`} checked={t[f]} onChange={() => void flip(t, f)} />
                </td>
              ))}
              <td className="muted">{t.locked ? (t.lockedWhy ?? 'locked by the owner') : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="note">Visibility only decides what the model is shown; “enabled” decides what may run; “restricted” calls from the loop wait for your approval.</p>

      <h3>Config</h3>
      <ErrorNote error={config.error} />
      {config.data ? (
        <div className="config">
          <pre className="plain config-json">{JSON.stringify(withoutTools(config.data.config), null, 2)}</pre>
          <div>
            <h4>Locked fields (the agent may only ask)</h4>
            <ul>{config.data.lockedFields.map((l) => <li key={l.path}><code>{l.path}</code> — {l.why}</li>)}</ul>
            <h4>Guard paths (never writable by the agent)</h4>
            <ul>{config.data.guardPaths.map((g) => <li key={g.path}><code>{g.path}</code> — {g.why}</li>)}</ul>
            <form className="inline" onSubmit={(e) => (e.preventDefault(), update())}>
              <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="limits.max_turns" aria-label="config path" />
              <input value={value} onChange={(e) => setValue(e.target.value)} placeholder="20" aria-label="config value" />
              <button type="submit">Set (owner, audited)</button>
            </form>
          </div>
        </div>
      ) : null}
    </section>
  );
}

/** The config minus `tools`, which the matrix above already shows. */
function withoutTools(config: unknown): unknown {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return config;
  const { tools: _tools, ...rest } = config as Record<string, unknown>;
  return { ...rest, tools: '(see the matrix above)' };
}
