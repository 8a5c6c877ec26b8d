import { ErrorNote, useLoad } from '../studio-context';
import type { PluginReport } from '../types';

/** The package inspector: capabilities first with their risk, then signature, then imports vs grants. */
export function PluginsView() {
  const { data, error } = useLoad<{ provided: boolean; plugins: PluginReport[] }>('/plugins');
  return (
    <section>
      <h2>Plugins</h2>
      <ErrorNote error={error} />
      {data && !data.provided ? <p className="muted">This server provides no plugin inspector data.</p> : null}
      {data?.provided && data.plugins.length === 0 ? <p className="muted">No plugins installed.</p> : null}
      {(data?.plugins ?? []).map((p) => (
        <article key={p.name} className="plugin">
          <h3>
            {p.name} {p.version ? <span className="muted">{p.version}</span> : null}
          </h3>
          <h4>Capabilities</h4>
          <ul className="caps">
            {p.capabilities.map((c) => (
              <li key={c.name}>
                <span className={`badge risk-${c.risk}`}>{c.risk}</span> <code>{c.name}</code> {c.note ? <span className="muted">— {c.note}</span> : null}
              </li>
            ))}
          </ul>
          <h4>Signature</h4>
          <p>
            <span className={p.signature?.status === 'valid' ? 'badge ok' : 'badge deny'}>{p.signature?.status ?? 'unsigned'}</span>{' '}
            {p.signature?.signer ?? ''}
          </p>
          <h4>Imports against grants</h4>
          <table>
            <tbody>
              {(p.imports ?? []).map((i) => (
                <tr key={i.name}>
                  <td><code>{i.name}</code></td>
                  <td><span className={i.granted ? 'badge ok' : 'badge deny'}>{i.granted ? 'granted' : 'not granted'}</span></td>
                </tr>
              ))}
            </tbody>
          </table>
        </article>
      ))}
    </section>
  );
}
