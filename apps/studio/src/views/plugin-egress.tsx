import type { PluginEgress } from '../plugin-types';

/**
 * The owner's egress policy a network-granted plugin runs under (the workspace file, as it was at
 * load), one row per rule; `highlight` marks the rule a denial names. Policy text is shown as text only.
 */
export function PluginEgressRules({ egress, highlight }: { egress: PluginEgress; highlight?: string | undefined }) {
  return (
    <div className="run-policy plugin-egress">
      <h4>
        Egress policy of this plugin{egress.name ? <> ({egress.name})</> : null}{' '}
        <span className="muted">
          from <code>{egress.file}</code>, as loaded
        </span>
      </h4>
      <dl className="rules">
        {egress.rules.map((r) => (
          <div key={r.path} data-section={r.path} className={highlight === r.path ? 'rule-row highlight' : 'rule-row'}>
            <dt>
              <code>{r.path}</code>
            </dt>
            <dd>
              <code>{r.value}</code>
            </dd>
          </div>
        ))}
      </dl>
      {highlight !== undefined && !egress.rules.some((r) => r.path === highlight) ? (
        <p className="muted">
          The policy has no <code>{highlight}</code> rule: nothing there allows this destination.
        </p>
      ) : null}
    </div>
  );
}
