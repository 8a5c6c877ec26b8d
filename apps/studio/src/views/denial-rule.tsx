import { useState } from 'react';
import { ApiError } from '../api';
import { ruleSection } from '../sandbox-request';
import type { SandboxLiveRun } from '../sandbox-types';
import { ErrorNote, useStudio } from '../studio-context';
import type { AuditRow } from '../types';
import { PolicyRules } from './sandbox-run';
import { PluginDenialRule } from './plugin-denial-rule';

/**
 * For a sandbox run's denial in the audit timeline: a link that opens the rule that made it, in
 * the egress policy the run was started with (runs started from this studio keep it). Renders
 * nothing for other rows.
 */
export function DenialRule({ row }: { row: AuditRow }) {
  const { api } = useStudio();
  const [open, setOpen] = useState(false);
  const [run, setRun] = useState<SandboxLiveRun | null>();
  const [error, setError] = useState<ApiError>();
  const section = ruleSection(row.rule);
  if (row.principal.kind === 'plugin') return <PluginDenialRule row={row} />;
  if (row.kind !== 'sandbox' || row.decision !== 'deny' || section === undefined) return null;
  const show = () => {
    setOpen((o) => !o);
    if (run !== undefined) return;
    api.get<{ runs: SandboxLiveRun[] }>('/sandbox/runs').then(
      (r) => setRun(r.runs.find((x) => x.id === row.principal.id) ?? null),
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
          {run === null ? (
            <p className="muted">
              The policy of this run is not kept here (it was run by <code>trust sandbox</code> or before the studio
              started); the rule is <code>{row.rule}</code> in its egress policy file, section <code>{section}</code>.
            </p>
          ) : run !== undefined ? (
            <PolicyRules run={run} highlight={section} />
          ) : null}
        </>
      ) : null}
    </div>
  );
}
