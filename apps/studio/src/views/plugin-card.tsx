import type { PluginReport } from '../types';

const TRUST: Record<string, { badge: string; text: string }> = {
  valid: { badge: 'badge ok', text: 'signed by a trusted key' },
  'untrusted-key': { badge: 'badge warn', text: 'signed, but by a key this workspace does not trust' },
  invalid: { badge: 'badge deny', text: 'signature does not verify' },
  unsigned: { badge: 'badge deny', text: 'unsigned' },
};

/**
 * One package as the inspector reports it, in the order that matters: capabilities with their
 * risk first, then who signed it and whether that key is trusted, then what exactly it is
 * (digest, interface hash, exports), then its imports against the grants with what a load would
 * refuse. Every string here comes from the package: text only, never HTML.
 */
export function PluginCard({ plugin: p }: { plugin: PluginReport }) {
  const sig = p.signature ?? { status: 'unsigned' as const };
  const trust = TRUST[sig.status] ?? TRUST['invalid']!;
  const refused = (p.imports ?? []).filter((i) => !i.granted);
  const refusedWhat = refused.length === 1 ? 'this import' : `${refused.length} imports`;
  return (
    <article className="plugin" data-plugin={p.name}>
      <h3>
        {p.name} {p.version ? <span className="muted">{p.version}</span> : null}
        {p.source && p.source !== p.name ? <span className="muted"> ({p.source})</span> : null}
      </h3>
      <h4>Capabilities</h4>
      {p.capabilities.length === 0 ? (
        <p className="muted">None declared: the plugin gets no access to anything outside itself.</p>
      ) : null}
      <ul className="caps">
        {p.capabilities.map((c) => (
          <li key={c.name}>
            <span className={`badge risk-${c.risk}`}>{c.risk}</span> <code>{c.name}</code>{' '}
            {c.note ? <span className="muted">— {c.note}</span> : null}
          </li>
        ))}
      </ul>
      <h4>Signature</h4>
      <p className="signature" data-signature={sig.status}>
        <span className={trust.badge}>{sig.status}</span> {trust.text}
        {sig.signer ? (
          <>
            {' '}
            · signer <code>{sig.signer}</code>
          </>
        ) : null}
      </p>
      {sig.reason ? <p className="muted reason-text">{sig.reason}</p> : null}
      {p.component ? (
        <>
          <h4>Component</h4>
          <dl className="facts">
            <dt>file</dt>
            <dd>
              <code>{p.component.path}</code> ({p.component.size.toLocaleString('en')} bytes)
            </dd>
            <dt>digest</dt>
            <dd>
              <code className="digest">{p.component.digest}</code>
            </dd>
            <dt>interface hash</dt>
            <dd>
              <code className="interface-hash">{p.component.interfaceHash}</code>
            </dd>
            {p.interface ? (
              <>
                <dt>interface</dt>
                <dd>
                  <code>{p.interface}</code>
                  {p.interfaceVersion !== undefined ? ` v${p.interfaceVersion}` : ''}
                </dd>
              </>
            ) : null}
            <dt>exports</dt>
            <dd>
              {(p.exports ?? []).length === 0
                ? 'none'
                : (p.exports ?? []).map((e) => (
                    <code key={e} className="export">
                      {e}
                    </code>
                  ))}
            </dd>
          </dl>
        </>
      ) : null}
      <h4>Imports against grants</h4>
      {refused.length > 0 ? (
        <p className="error" role="status">
          A load with these grants would refuse {refusedWhat}: {refused.map((i) => i.name).join(', ')}
        </p>
      ) : (p.imports ?? []).length > 0 ? (
        <p className="note">Every import is satisfied by the declared capabilities.</p>
      ) : p.imports !== undefined ? (
        <p className="muted">No imports: the component asks the host for nothing.</p>
      ) : null}
      <table className="imports">
        <tbody>
          {(p.imports ?? []).map((i) => (
            <tr key={i.name} data-import={i.name}>
              <td>
                <code>{i.name}</code>
              </td>
              <td>
                <span className={i.granted ? 'badge ok' : 'badge deny'}>
                  {i.granted ? 'granted' : 'would be refused'}
                </span>
              </td>
              <td className="muted">
                {i.refused ?? ''}
                {i.hint ? ` — ${i.hint}` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}
