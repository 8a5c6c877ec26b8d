import { useState } from 'react';
import { ApiError } from '../api';
import { ErrorNote, useStudio } from '../studio-context';
import type { LoadedPlugin, PluginDecision } from '../plugin-types';
import type { PluginReport } from '../types';
import { PluginDecisions } from './plugin-decisions';

/**
 * Loads one inspected package with grants the owner ticks: only the capabilities its manifest
 * declares are offered, none is ticked at first (deny-all), and the server refuses anything wider.
 */
export function PluginLoad({ plugin: p, onLoaded }: { plugin: PluginReport; onLoaded(): void }) {
  const { api } = useStudio();
  const [grants, setGrants] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [done, setDone] = useState<{ plugin: LoadedPlugin; decisions: PluginDecision[] }>();
  if (p.source === undefined || p.signature?.status === 'invalid') return null;
  const toggle = (c: string) => setGrants((g) => (g.includes(c) ? g.filter((x) => x !== c) : [...g, c]));
  const load = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setDone(await api.send('POST', '/plugins/load', { source: p.source, grants }));
      onLoaded();
    } catch (e) {
      setDone(undefined);
      setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="plugin-load" data-load={p.source}>
      <h4>Load</h4>
      {p.capabilities.length === 0 ? (
        <p className="muted">It declares no capabilities, so it loads with none.</p>
      ) : (
        <fieldset className="grants">
          <legend>Grant (a subset of what it declares; unticked is denied)</legend>
          {p.capabilities.map((c) => (
            <label key={c.name}>
              <input
                type="checkbox"
                data-grant={c.name}
                checked={grants.includes(c.name)}
                onChange={() => toggle(c.name)}
              />{' '}
              <code>{c.name}</code> <span className={`badge risk-${c.risk}`}>{c.risk}</span>
            </label>
          ))}
        </fieldset>
      )}
      <button type="button" className="load-plugin" disabled={busy} onClick={() => void load()}>
        {busy ? 'Loading…' : `Load ${p.name}`}
      </button>
      <ErrorNote error={error} />
      {done ? (
        <div className="load-result" role="status">
          <p>
            Loaded as <code>{done.plugin.id}</code> with{' '}
            {done.plugin.capabilities.length === 0 ? 'no capabilities' : done.plugin.capabilities.join(', ')}.
          </p>
          <PluginDecisions decisions={done.decisions} empty="No grant decisions: nothing was granted." />
        </div>
      ) : null}
    </div>
  );
}
