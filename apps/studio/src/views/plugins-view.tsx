import { ErrorNote, useLoad } from '../studio-context';
import type { PluginReport } from '../types';
import { PluginCard } from './plugin-card';

/** The package inspector: capabilities first with their risk, then signature, then imports vs grants. */
export function PluginsView() {
  const { data, error } = useLoad<{ provided: boolean; plugins: PluginReport[] }>('/plugins');
  return (
    <section>
      <h2>Plugins</h2>
      <ErrorNote error={error} />
      {data && !data.provided ? (
        <p className="muted empty">
          This server provides no plugin inspector data. Start the studio with <code>trust studio</code> on a workspace:
          it inspects every package in its <code>plugins/</code> folder.
        </p>
      ) : null}
      {data?.provided && data.plugins.length === 0 ? (
        <p className="muted empty">
          No plugins installed. Put a signed <code>.tpkg</code> package in the workspace's <code>plugins/</code> folder;
          it is inspected here before anything loads it.
        </p>
      ) : null}
      {(data?.plugins ?? []).map((p) => (
        <PluginCard key={p.source ?? p.name} plugin={p} />
      ))}
    </section>
  );
}
