import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAX_RECORDED_POLICY_BYTES,
  recordedPolicyDocument,
  recordEgressPolicy,
  REDACTED_HEADER,
} from './sandbox-runs-policy.js';
import { appendSandboxRun, readSandboxRuns, sandboxRunRecord, type FinishedRun } from './sandbox-runs.js';
import { readStudioAuditLogs } from '../studio/studio-audit.js';

const dir = mkdtempSync(join(tmpdir(), 'trust-runs-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const POLICY = {
  v: 1,
  http: {
    allow: ['api.example.com'],
    inject: [
      { hosts: ['api.example.com'], headers: { authorization: 'Bearer sk-literal-9', 'x-key': { env: 'KEY' } } },
    ],
  },
};
const run = (runId: string, egressPolicy?: FinishedRun['egressPolicy']): FinishedRun => ({
  runId,
  argv: ['curl', 'http://denied.example/'],
  policy: { capabilities: ['http'] },
  exit: { code: 1, signal: null, timedOut: false, durationMs: 3, violations: [] },
  egress: [
    {
      principal: { kind: 'process', id: runId },
      action: 'egress.http',
      target: 'http://denied.example/',
      decision: 'deny',
      rule: 'cli-policy:http.allow',
    },
    {
      principal: { kind: 'process', id: runId },
      action: 'egress.http',
      target: 'http://api.example.com/',
      decision: 'allow',
    },
  ],
  ...(egressPolicy === undefined ? {} : { egressPolicy }),
  startedAt: new Date(0),
});

describe('a run record keeps the egress policy it ran under', () => {
  it('records the canonical document with its SHA-256, literal header values replaced, env names kept', () => {
    const r = recordEgressPolicy(POLICY);
    expect(r?.json).not.toContain('sk-literal-9');
    const doc = JSON.parse(r?.json ?? 'null') as typeof POLICY;
    expect(doc.http.inject[0]?.headers).toEqual({ authorization: REDACTED_HEADER, 'x-key': { env: 'KEY' } });
    expect(doc.http.allow).toEqual(['api.example.com']);
    expect(r?.sha256).toBe(
      createHash('sha256')
        .update(r?.json ?? '')
        .digest('hex'),
    );
    // Canonical: key order does not change the record.
    expect(recordEgressPolicy({ http: { inject: POLICY.http.inject, allow: ['api.example.com'] }, v: 1 })).toEqual(r);
    expect(recordEgressPolicy(null)).toBeNull();
  });

  it('keeps only the hash of a policy over the bound, and reads nothing back from it', () => {
    const big = { v: 1, http: { allow: Array.from({ length: 2000 }, (_, i) => `h${i}.example.com`) } };
    const r = recordEgressPolicy(big);
    expect(r?.json).toBeNull();
    expect(r?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(MAX_RECORDED_POLICY_BYTES).toBeLessThan(JSON.stringify(big).length);
    expect(recordedPolicyDocument(r)).toBeUndefined();
  });

  it('reads a recorded policy back only when it matches its hash', () => {
    const r = recordEgressPolicy(POLICY)!;
    expect(recordedPolicyDocument(r)?.document).toEqual(JSON.parse(r.json!));
    expect(recordedPolicyDocument(null)).toBeNull();
    expect(recordedPolicyDocument(undefined)).toBeUndefined();
    expect(recordedPolicyDocument({ sha256: r.sha256, json: r.json!.replace('api', 'evil') })).toBeUndefined();
    expect(recordedPolicyDocument({ sha256: r.sha256 })).toBeUndefined();
  });

  it("a denial's timeline row names its run's policy, kept through the run log; old records stay unknown", async () => {
    const file = join(dir, 'sandbox-runs.jsonl');
    appendSandboxRun(file, sandboxRunRecord(run('old-run')));
    appendSandboxRun(file, sandboxRunRecord(run('new-run', recordEgressPolicy(POLICY))));
    appendSandboxRun(file, sandboxRunRecord(run('no-net', null)));
    const [, sandbox] = await readStudioAuditLogs(join(dir, 'no-control.jsonl'), readSandboxRuns(file));
    const denial = (id: string) =>
      sandbox?.events.find((e) => e.principal.id === id && e.action === 'egress.connect' && e.decision === 'deny');
    const key = recordEgressPolicy(POLICY)!.sha256;
    expect(denial('new-run')?.details).toEqual({ policy: key, capabilities: ['http'] });
    expect(sandbox?.policies?.[key]).toEqual(JSON.parse(recordEgressPolicy(POLICY)!.json!));
    expect(denial('no-net')?.details).toEqual({ policy: null, capabilities: ['http'] });
    expect(denial('old-run')?.details).toBeUndefined();
    // Allowed rows carry no policy.
    expect(sandbox?.events.filter((e) => e.decision === 'allow' && e.details?.policy !== undefined)).toEqual([]);
  });
});
