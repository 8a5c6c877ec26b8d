import { ruleSection } from '../sandbox-request';
import type { SandboxLiveRun } from '../sandbox-types';
import { useStudio } from '../studio-context';
import type { AuditRow } from '../types';
import { PolicyRules } from './sandbox-run';
import { PluginDenialRule } from './plugin-denial-rule';
import { RuleLink } from './rule-link';

/**
 * For a sandbox run's denial in the audit timeline: a link that opens the rule that made it, in
 * the egress policy the run was started with: a run this studio is keeping, else the policy its
 * record keeps (`trust sandbox` and studio runs record it: the row's `details.policy` names it in
 * the timeline's `policies`, so it holds after a restart). Records from before policies were
 * recorded keep only the rule's name: for those the link says so ("rule unknown: run not started
 * from this studio") instead of guessing a policy. Renders nothing for other rows.
 */
export function DenialRule({ row, policies }: { row: AuditRow; policies?: Record<string, unknown> }) {
  const { api } = useStudio();
  const section = ruleSection(row.rule);
  if (row.principal.kind === 'plugin') return <PluginDenialRule row={row} />;
  if (row.kind !== 'sandbox' || row.decision !== 'deny' || section === undefined) return null;
  const load = () =>
    api
      .get<{ runs: SandboxLiveRun[] }>('/sandbox/runs')
      .then((r) => r.runs.find((x) => x.id === row.principal.id) ?? recordedRun(row, policies));
  return (
    <RuleLink section={section} load={load}>
      {(run) =>
        run === null ? (
          <p className="muted" data-rule-unknown="">
            <strong>rule unknown: run not started from this studio</strong>. Its record (from <code>trust sandbox</code>
            , or from before this studio started) keeps the rule's name, <code>{row.rule}</code>, but not the egress
            policy it was run with; look for section <code>{section}</code> in that policy file.
          </p>
        ) : (
          <PolicyRules run={run} highlight={section} />
        )
      }
    </RuleLink>
  );
}

/** The run as its record describes it, when the record kept its egress policy (null: unknown). */
function recordedRun(row: AuditRow, policies: Record<string, unknown> | undefined): SandboxLiveRun | null {
  const key = row.details?.policy;
  const egress =
    key === null
      ? null
      : typeof key === 'string' && policies && Object.hasOwn(policies, `${row.log} ${key}`)
        ? policies[`${row.log} ${key}`]
        : undefined;
  if (egress === undefined) return null;
  return {
    id: row.principal.id,
    argv: [],
    startedAt: row.time,
    state: 'exited',
    policy: { capabilities: row.details?.capabilities ?? null },
    egress,
    limits: { timeMs: 0, outputBytes: 0 },
    counts: { allowed: 0, denied: 0 },
  };
}
