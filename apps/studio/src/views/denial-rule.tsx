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
 * the egress policy the run was started with (runs started from this running studio keep it).
 * Runs recorded by `trust sandbox` keep only the rule's name, not the policy: for those the link
 * says so ("rule unknown: run not started from this studio") instead of guessing a policy.
 * Renders nothing for other rows.
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
            <p className="muted" data-rule-unknown="">
              <strong>rule unknown: run not started from this studio</strong>. Its record (from{' '}
              <code>trust sandbox</code>, or from before this studio started) keeps the rule's name,{' '}
              <code>{row.rule}</code>, but not the egress policy it was run with; look for section{' '}
              <code>{section}</code> in that policy file.
            </p>
          ) : run !== undefined ? (
            <PolicyRules run={run} highlight={section} />
          ) : null}
        </>
      ) : null}
    </div>
  );
}
