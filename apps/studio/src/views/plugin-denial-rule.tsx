import { useState } from 'react';
import { ApiError } from '../api';
import { pluginRuleSection, type LoadedPlugin } from '../plugin-types';
import { ErrorNote, useStudio } from '../studio-context';
import type { AuditRow } from '../types';
import { PluginEgressRules } from './plugin-egress';

/**
 * For a plugin's egress denial in the audit timeline: a link that opens the rule that made it, in
 * the egress policy the plugin was loaded with (kept while it is loaded). Renders nothing for other rows.
 */
export function PluginDenialRule({ row }: { row: AuditRow }) {
  const { api } = useStudio();
  const [open, setOpen] = useState(false);
  const [plugin, setPlugin] = useState<LoadedPlugin | null>();
  const [error, setError] = useState<ApiError>();
  const section = pluginRuleSection(row.action, row.rule);
  if (row.principal.kind !== 'plugin' || row.decision !== 'deny' || section === undefined) return null;
  const show = () => {
    setOpen((o) => !o);
    if (plugin !== undefined) return;
    api.get<{ loaded: LoadedPlugin[] }>('/plugins/loaded').then(
      (r) => setPlugin(r.loaded.find((p) => p.id === row.principal.id) ?? null),
      (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', String(e))),
    );
  };
  return (
    <div className="denial-rule">
      <button type="button" className="link" data-rule-link={section} onClick={show}>
        {open ? 'hide rule' : `rule ${section} ›`}
      </button>
      {open ? (
        <>
          <ErrorNote error={error} />
          {plugin?.egress ? (
            <PluginEgressRules egress={plugin.egress} highlight={section} />
          ) : plugin !== undefined ? (
            <p className="muted">
              This plugin is no longer loaded, so the policy it ran under is not kept here; the rule is{' '}
              <code>{row.rule}</code>, section <code>{section}</code> of the workspace's plugin egress policy (
              <code>egress-policy.json</code>) as it was at load.
            </p>
          ) : null}
        </>
      ) : null}
    </div>
  );
}
