import { pluginRuleSection, type LoadedPlugin } from '../plugin-types';
import { useStudio } from '../studio-context';
import type { AuditRow } from '../types';
import { PluginEgressRules } from './plugin-egress';
import { RuleLink } from './rule-link';

/**
 * For a plugin's egress denial in the audit timeline: a link that opens the rule that made it, in
 * the egress policy the plugin was loaded with (kept while it is loaded). Renders nothing for other rows.
 */
export function PluginDenialRule({ row }: { row: AuditRow }) {
  const { api } = useStudio();
  const section = pluginRuleSection(row.action, row.rule);
  if (row.principal.kind !== 'plugin' || row.decision !== 'deny' || section === undefined) return null;
  const load = () =>
    api.get<{ loaded: LoadedPlugin[] }>('/plugins/loaded').then((r) => r.loaded.find((p) => p.id === row.principal.id));
  return (
    <RuleLink section={section} load={load}>
      {(plugin) =>
        plugin?.egress ? (
          <PluginEgressRules egress={plugin.egress} highlight={section} />
        ) : (
          <p className="muted">
            This plugin is no longer loaded, so the policy it ran under is not kept here; the rule is{' '}
            <code>{row.rule}</code>, section <code>{section}</code> of the workspace's plugin egress policy (
            <code>egress-policy.json</code>) as it was at load.
          </p>
        )
      }
    </RuleLink>
  );
}
