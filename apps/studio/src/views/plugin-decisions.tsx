import type { PluginDecision } from '../plugin-types';

/** The decisions recorded for a plugin (grants, load, egress), each as text with its rule and code. */
export function PluginDecisions({ decisions, empty }: { decisions: PluginDecision[]; empty: string }) {
  if (decisions.length === 0) return <p className="muted plugin-decisions-empty">{empty}</p>;
  return (
    <table className="plugin-decisions">
      <tbody>
        {decisions.map((d) => (
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
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
