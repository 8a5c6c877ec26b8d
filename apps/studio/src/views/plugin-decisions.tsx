import { useState } from 'react';
import { pluginRuleSection, type PluginDecision, type PluginEgress } from '../plugin-types';
import { PluginEgressRules } from './plugin-egress';

/**
 * The decisions recorded for a plugin (grants, load, egress), each as text with its rule and code.
 * With the plugin's egress policy, a denial links to the rule that made it.
 */
export function PluginDecisions({
  decisions,
  empty,
  egress,
}: {
  decisions: PluginDecision[];
  empty: string;
  egress?: PluginEgress | undefined;
}) {
  const [open, setOpen] = useState<string>();
  if (decisions.length === 0) return <p className="muted plugin-decisions-empty">{empty}</p>;
  return (
    <>
      <table className="plugin-decisions">
        <tbody>
          {decisions.map((d) => {
            const section = d.decision === 'deny' && egress ? pluginRuleSection(d.action, d.rule) : undefined;
            return (
              <tr key={`${d.time} ${d.action} ${d.target} ${d.decision} ${d.code ?? ''}`} data-action={d.action}>
                <td>
                  <span className={d.decision === 'allow' ? 'badge ok' : 'badge deny'}>{d.decision}</span>
                </td>
                <td>
                  <code>{d.action}</code>
                </td>
                <td>
                  <code>{d.target}</code>
                </td>
                <td className="muted">
                  {d.rule ? `rule ${d.rule}` : ''}
                  {d.code ? ` · ${d.code}` : ''}
                  {d.reason ? ` — ${d.reason}` : ''}
                  {section !== undefined ? (
                    <>
                      {' '}
                      <button
                        type="button"
                        className="link"
                        data-rule-link={section}
                        onClick={() => setOpen((o) => (o === section ? undefined : section))}
                      >
                        {open === section ? 'hide rule' : `rule ${section} ›`}
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {open !== undefined && egress ? <PluginEgressRules egress={egress} highlight={open} /> : null}
    </>
  );
}
