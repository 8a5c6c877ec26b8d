import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
// Types only: this module is loaded with `trust sandbox|studio|agent chat --help`, which must not load @trust/core.
import type { AuditEvent, AuditInput, AuditSink } from '@trust/core';
import type { SandboxRunView } from '../control/index.js';
import type { RecordedEgressPolicy } from './sandbox-runs-policy.js';

/** How many runs the studio shows (the newest ones). */
export const MAX_SANDBOX_RUNS = 200;

/** One recorded `trust sandbox` run: the studio's `SandboxRunView` plus the details the CLI knows. */
export interface SandboxRunRecord extends SandboxRunView {
  readonly v: 1;
  readonly argv: readonly string[];
  readonly policy: {
    readonly capabilities: readonly string[];
    readonly limits: Readonly<Record<string, unknown>>;
    readonly allowDegraded: readonly string[];
  };
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly violations: readonly string[];
  readonly egress: readonly { readonly target: string; readonly decision: 'allow' | 'deny'; readonly rule?: string }[];
  readonly egressCounts: { readonly allowed: number; readonly denied: number };
  /**
   * The egress policy the run ran under (see `recordEgressPolicy`); `null`: it had none. Absent in
   * records written before policies were recorded: their denials cannot be linked to a rule.
   */
  readonly egressPolicy?: RecordedEgressPolicy | null;
  readonly startedAt: string;
  readonly durationMs: number;
}

/**
 * The run log of a trust home: `<TRUST_HOME>/sandbox-runs.jsonl`, one JSON record a line.
 *
 * @example
 * const file = sandboxRunsFile(trustHome(io.env));
 */
export function sandboxRunsFile(home: string): string {
  return join(home, 'sandbox-runs.jsonl');
}

/**
 * An audit sink that keeps the egress decisions of a run (actions starting with `egress`) and
 * passes every event on to `inner` (e.g. `createMemoryAuditSink()` from @trust/core).
 *
 * @example
 * const egress = createEgressCollector(createMemoryAuditSink());
 * await createSandbox(policy, { audit: egress.sink });
 */
export function createEgressCollector(inner: AuditSink): { sink: AuditSink; events: AuditInput[] } {
  const events: AuditInput[] = [];
  const next = inner;
  const sink: AuditSink = {
    record(input: AuditInput): AuditEvent {
      if (input.action.startsWith('egress') && events.length < 1000) events.push(input);
      return next.record(input);
    },
  };
  return { sink, events };
}

/** What a finished run reported, as the record builder needs it. */
export interface FinishedRun {
  readonly runId: string;
  readonly argv: readonly string[];
  readonly policy: { readonly capabilities?: unknown; readonly limits?: unknown; readonly allowDegraded?: unknown };
  readonly exit: {
    readonly code: number | null;
    readonly signal: string | null;
    readonly timedOut: boolean;
    readonly durationMs: number;
    readonly violations: readonly { readonly action: string; readonly target: string; readonly code?: string }[];
  };
  readonly egress: readonly AuditInput[];
  /** Built with `recordEgressPolicy` from the policy document; omitted: not recorded. */
  readonly egressPolicy?: RecordedEgressPolicy | null;
  readonly startedAt: Date;
}

/**
 * Builds the record of one run (argv kept as given: the studio renders it as text).
 *
 * @example
 * const record = sandboxRunRecord({ runId, argv, policy, exit, egress: collector.events, startedAt });
 */
export function sandboxRunRecord(run: FinishedRun): SandboxRunRecord {
  const list = (x: unknown): string[] => (Array.isArray(x) ? x.map(String) : []);
  const egress = run.egress.map((e) => ({
    target: e.target,
    decision: e.decision,
    ...(e.rule ? { rule: e.rule } : {}),
  }));
  return {
    v: 1,
    id: run.runId,
    command: run.argv.join(' '),
    argv: [...run.argv],
    policy: {
      capabilities: list(run.policy.capabilities),
      limits:
        typeof run.policy.limits === 'object' && run.policy.limits !== null
          ? { ...(run.policy.limits as Record<string, unknown>) }
          : {},
      allowDegraded: list(run.policy.allowDegraded),
    },
    exitCode: run.exit.code,
    signal: run.exit.signal,
    timedOut: run.exit.timedOut,
    violations: run.exit.violations.map((v) => `${v.action} ${v.target}${v.code ? ` (${v.code})` : ''}`),
    egress,
    egressCounts: {
      allowed: egress.filter((e) => e.decision === 'allow').length,
      denied: egress.filter((e) => e.decision === 'deny').length,
    },
    ...(run.egressPolicy === undefined ? {} : { egressPolicy: run.egressPolicy }),
    startedAt: run.startedAt.toISOString(),
    durationMs: run.exit.durationMs,
  };
}

/**
 * Appends one record to the run log (created with mode 0600, its directory with 0700).
 *
 * @example
 * appendSandboxRun(sandboxRunsFile(trustHome(io.env)), record);
 */
export function appendSandboxRun(file: string, record: SandboxRunRecord): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  appendFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/**
 * Reads the run log: the last `max` runs, newest first. A missing file is no runs; a line that
 * is not a JSON object with an `id` and a `command` is skipped.
 *
 * @example
 * const runs = readSandboxRuns(sandboxRunsFile(home)); // runs[0] is the newest
 */
export function readSandboxRuns(file: string, max = MAX_SANDBOX_RUNS): SandboxRunRecord[] {
  if (!existsSync(file)) return [];
  const runs: SandboxRunRecord[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const doc = JSON.parse(line) as unknown;
      if (
        typeof doc === 'object' &&
        doc !== null &&
        !Array.isArray(doc) &&
        typeof (doc as { id?: unknown }).id === 'string' &&
        typeof (doc as { command?: unknown }).command === 'string'
      ) {
        runs.push(doc as SandboxRunRecord);
      }
    } catch {
      // a corrupt line (e.g. a run cut off mid-write) is skipped
    }
  }
  return runs.slice(-max).reverse();
}
