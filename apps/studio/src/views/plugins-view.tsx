import { ErrorNote, useLoad } from '../studio-context';
import type { LoadedPlugin } from '../plugin-types';
import type { PluginReport } from '../types';
import { PluginCall } from './plugin-call';
import { PluginCard } from './plugin-card';
import { PluginLoad } from './plugin-load';
import { PluginUpload } from './plugin-upload';

/**
 * The package inspector (capabilities first with their risk, then signature, then imports vs
 * grants), with the actions the host runs: upload a package, load one with narrowed grants, call
 * a loaded plugin's exports, unload it.
 */
export function PluginsView() {
  const { data, error, reload } = useLoad<{ provided: boolean; plugins: PluginReport[] }>('/plugins');
  const loaded = useLoad<{ provided: boolean; loaded: LoadedPlugin[] }>('/plugins/loaded');
  const actions = loaded.data?.provided === true;
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
      {actions ? <PluginUpload onUploaded={reload} /> : null}
      {data?.provided && data.plugins.length === 0 ? (
        <p className="muted empty">
          No plugins installed. Put a signed <code>.tpkg</code> package in the workspace's <code>plugins/</code> folder;
          it is inspected here before anything loads it.
        </p>
      ) : null}
      {actions && (loaded.data?.loaded ?? []).length > 0 ? (
        <div className="plugins-loaded">
          <h3>Loaded now</h3>
          {loaded.data!.loaded.map((p) => (
            <PluginCall key={p.id} plugin={p} onChanged={loaded.reload} />
          ))}
        </div>
      ) : null}
      {(data?.plugins ?? []).map((p) => (
        <div key={p.source ?? p.name} className="plugin-entry">
          <PluginCard plugin={p} />
          {actions ? <PluginLoad plugin={p} onLoaded={loaded.reload} /> : null}
        </div>
      ))}
    </section>
  );
}
