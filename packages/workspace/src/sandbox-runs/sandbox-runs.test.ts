import { createMemoryAuditSink } from '@trust/core';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendSandboxRun,
  createEgressCollector,
  readSandboxRuns,
  sandboxRunRecord,
  sandboxRunsFile,
} from './sandbox-runs.js';

const dir = mkdtempSync(join(tmpdir(), 'trust-runs-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exit = { code: 0, signal: null, timedOut: false, durationMs: 5, violations: [] };
const record = (runId: string) =>
  sandboxRunRecord({
    runId,
    argv: ['/bin/echo', 'a b'],
    policy: { capabilities: ['stdout'] },
    exit,
    egress: [],
    startedAt: new Date(0),
  });

describe('sandbox run log', () => {
  it('builds a record with the policy summary, argv as text and egress counts', () => {
    const collector = createEgressCollector(createMemoryAuditSink());
    const principal = { kind: 'sandbox', id: 'r1' } as never;
    collector.sink.record({ principal, action: 'sandbox.spawn', target: '/bin/echo', decision: 'allow' });
    collector.sink.record({
      principal,
      action: 'egress.http',
      target: 'http://a.example/',
      decision: 'allow',
      rule: 'r',
    });
    collector.sink.record({
      principal,
      action: 'egress.http',
      target: 'http://b.example/',
      decision: 'deny',
      code: 'EGRESS_HOST_NOT_ALLOWED',
    });
    const r = sandboxRunRecord({
      runId: 'r1',
      argv: ['/bin/echo', '<b>hi</b>'],
      policy: { capabilities: ['stdout'], limits: { timeMs: 1 } },
      exit: {
        ...exit,
        violations: [{ action: 'egress.http', target: 'http://b.example/', code: 'EGRESS_HOST_NOT_ALLOWED' }],
      },
      egress: collector.events,
      startedAt: new Date(0),
    });
    expect(r).toMatchObject({
      id: 'r1',
      command: '/bin/echo <b>hi</b>',
      policy: { capabilities: ['stdout'], limits: { timeMs: 1 }, allowDegraded: [] },
      startedAt: '1970-01-01T00:00:00.000Z',
    });
    expect(r.egress).toEqual([
      { target: 'http://a.example/', decision: 'allow', rule: 'r' },
      { target: 'http://b.example/', decision: 'deny' },
    ]);
    expect(r.egressCounts).toEqual({ allowed: 1, denied: 1 });
    expect(r.violations).toEqual(['egress.http http://b.example/ (EGRESS_HOST_NOT_ALLOWED)']);
  });

  it('appends with mode 0600 and reads newest first, skipping corrupt lines', () => {
    const file = sandboxRunsFile(join(dir, 'home'));
    expect(readSandboxRuns(file)).toEqual([]);
    appendSandboxRun(file, record('first'));
    appendFileSync(file, '{"id": "cut off mid-wri\nnot json\n[1]\n');
    appendSandboxRun(file, record('second'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readSandboxRuns(file).map((r) => r.id)).toEqual(['second', 'first']);
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(5);
  });

  it('keeps only the newest runs when reading', () => {
    const file = join(dir, 'many.jsonl');
    writeFileSync(file, Array.from({ length: 205 }, (_, i) => JSON.stringify(record(`run-${i}`))).join('\n') + '\n');
    const runs = readSandboxRuns(file);
    expect(runs).toHaveLength(200);
    expect(runs[0]?.id).toBe('run-204');
    expect(runs.at(-1)?.id).toBe('run-5');
    expect(readSandboxRuns(file, 3).map((r) => r.id)).toEqual(['run-204', 'run-203', 'run-202']);
  });
});
