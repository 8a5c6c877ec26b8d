import { existsSync } from 'node:fs';
import type { AuditLogKind, AuditLogView, AuditTimelineInput } from '../control/index.js';
import type { SandboxRunRecord } from '../sandbox-runs/sandbox-runs.js';

/**
 * The host's logs for the studio's audit timeline (the agents' own chains are added by the
 * control server): the control server's edge log, a hash-chained JSONL file verified here, and
 * the sandbox runs with each violation and egress decision, a plain record shown as not chained.
 *
 * @example
 * auditLogs: () => readStudioAuditLogs(controlAuditFile(root), readSandboxRuns(file)),
 */
export async function readStudioAuditLogs(
  controlAuditFile: string,
  runs: readonly SandboxRunRecord[],
): Promise<AuditLogView[]> {
  const { recordedPolicyDocument } = await import('../sandbox-runs/sandbox-runs-policy.js');
  return [await readChainedLog('control-edge', controlAuditFile), sandboxLog(runs, recordedPolicyDocument)];
}

/**
 * A hash-chained JSONL log for the timeline, its chain verified; a missing file is an empty chain.
 *
 * @example
 * const view = await readChainedLog('workspace-egress', '/ws/egress-audit.jsonl', 'egress');
 */
export async function readChainedLog(
  name: string,
  file: string,
  kind: AuditLogKind = 'control',
): Promise<AuditLogView> {
  if (!existsSync(file)) return { name, kind, chain: { ok: true, count: 0 }, events: [] };
  const { readJsonlAudit } = await import('@trust/core/node');
  const { verifyChain } = await import('@trust/core');
  try {
    const events = readJsonlAudit(file);
    const v = verifyChain(events);
    return {
      name,
      kind,
      chain: v.ok
        ? { ok: true, count: v.count }
        : { ok: false, count: events.length, brokenAt: v.index, reason: v.reason },
      events,
    };
  } catch (error) {
    return {
      name,
      kind,
      chain: { ok: false, count: 0, reason: (error as Error).message.slice(0, 300) },
      events: [],
    };
  }
}

/**
 * Each run, its violations and its egress decisions as timeline rows (runs are newest first). A
 * denial of a run whose record keeps its egress policy carries `details.policy`: the policy's
 * SHA-256, its document in the log's `policies` (or `null`: the run had no egress policy).
 */
function sandboxLog(
  runs: readonly SandboxRunRecord[],
  policyOf: (recorded: unknown) => { sha256: string; document: unknown } | null | undefined,
): AuditLogView {
  const events: AuditTimelineInput[] = [];
  const policies: Record<string, unknown> = {};
  for (const run of [...runs].reverse()) {
    const principal = { kind: 'process' as const, id: run.id };
    const failed = run.violations.length > 0 || run.timedOut;
    const recorded = 'egressPolicy' in run ? policyOf(run.egressPolicy) : undefined;
    if (recorded) policies[recorded.sha256] = recorded.document;
    const policyDetails =
      recorded === undefined
        ? undefined
        : { policy: recorded === null ? null : recorded.sha256, capabilities: run.policy.capabilities };
    events.push({
      time: run.startedAt,
      principal,
      action: 'sandbox.run',
      target: run.command,
      decision: failed ? 'deny' : 'allow',
      ...(run.timedOut ? { code: 'SANDBOX_TIMEOUT' } : {}),
      details: { exitCode: run.exitCode, capabilities: run.policy.capabilities },
    });
    for (const v of run.violations)
      events.push({ time: run.startedAt, principal, action: 'sandbox.violation', target: v, decision: 'deny' });
    for (const e of run.egress)
      events.push({
        time: run.startedAt,
        principal,
        action: 'egress.connect',
        target: e.target,
        decision: e.decision,
        ...(e.rule ? { rule: e.rule } : {}),
        ...(e.decision === 'deny' && policyDetails ? { details: policyDetails } : {}),
      });
  }
  return { name: 'sandbox-runs', kind: 'sandbox', chain: null, events, policies };
}
