import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createJsonlAuditSink } from '@trust/core/node';
import { createPrincipal } from '@trust/core';
import { createTempHome, runCli } from './run-cli.test-helper.js';
import { appendSandboxRun, sandboxRunRecord, sandboxRunsFile } from '@trust/workspace';
import { auditTailSchema, auditVerifySchema, failureSchema } from './json-schemas.js';

const tmp = createTempHome();
afterAll(() => tmp.cleanup());
const file = join(tmp.home, 'audit.jsonl');

function writeChain(n: number): string[] {
  rmSync(file, { force: true });
  const sink = createJsonlAuditSink(file, { fsync: false });
  for (let i = 0; i < n; i++) {
    sink.record({
      principal: createPrincipal('plugin', 'p1'),
      action: 'egress.http',
      target: `https://h${i}.test/\u001b[2J`,
      decision: i % 2 ? 'deny' : 'allow',
      rule: 'r',
    });
  }
  sink.close();
  return readFileSync(file, 'utf8').trimEnd().split('\n');
}

describe('trust audit (built binary)', () => {
  it('verify accepts an intact chain', async () => {
    writeChain(5);
    const r = await runCli(['audit', 'verify', 'audit.jsonl', '--json'], { home: tmp.home });
    expect(r.code).toBe(0);
    expect(auditVerifySchema.parse(r.json()).result).toMatchObject({ ok: true, count: 5, format: 'jsonl' });
  });

  it.each([
    [
      'an edited event',
      (l: string[]) => l.map((x, i) => (i === 2 ? x.replace('"allow"', '"deny"') : x)),
      2,
      'AUDIT_HASH_MISMATCH',
    ],
    ['a deleted event', (l: string[]) => l.filter((_, i) => i !== 1), 1, 'AUDIT_PREV_MISMATCH'],
    ['reordered events', (l: string[]) => [l[0], l[2], l[1], l[3], l[4]] as string[], 1, 'AUDIT_PREV_MISMATCH'],
    ['a line that is not JSON', (l: string[]) => l.map((x, i) => (i === 3 ? '{not json' : x)), 3, 'AUDIT_MALFORMED'],
  ])('verify names the first broken link for %s (exit 1)', async (_name, tamper, index, code) => {
    const lines = writeChain(5);
    writeFileSync(file, `${tamper(lines).join('\n')}\n`);
    const r = await runCli(['audit', 'verify', 'audit.jsonl', '--json'], { home: tmp.home });
    expect(r.code).toBe(1);
    const doc = auditVerifySchema.parse(r.json());
    expect(doc.result.broken).toMatchObject({ index, line: index + 1, code });
    expect(doc.result.state).toBe('tampered');
    const human = await runCli(['audit', 'verify', 'audit.jsonl'], { home: tmp.home });
    expect(human.stdout).toContain(`breaks at event ${index} (line ${index + 1})`);
    expect(human.stdout).toContain('changed after it was written');
  });

  it('verify says plainly that the sandbox run log is not a chained log, never that it was changed', async () => {
    const runs = sandboxRunsFile(tmp.home);
    rmSync(runs, { force: true });
    for (const runId of ['r1', 'r2'])
      appendSandboxRun(
        runs,
        sandboxRunRecord({
          runId,
          argv: ['echo', 'hi'],
          policy: { capabilities: ['stdout'] },
          exit: { code: 0, signal: null, timedOut: false, durationMs: 3, violations: [] },
          egress: [],
          startedAt: new Date(0),
        }),
      );
    const r = await runCli(['audit', 'verify', 'sandbox-runs.jsonl', '--json'], { home: tmp.home });
    expect(r.code).toBe(1);
    expect(failureSchema.parse(r.json()).error.code).toBeTrustCode('CLI_AUDIT_NOT_CHAINED');
    const human = await runCli(['audit', 'verify', 'sandbox-runs.jsonl'], { home: tmp.home });
    expect(human.stderr + human.stdout).toContain('is not a hash-chained audit log: none of its 2 record(s)');
    expect(human.stderr + human.stdout).not.toContain('changed after it was written');
    // An audit log whose hashes were stripped from some events is still tampering, not "unchained".
    const lines = writeChain(3);
    writeFileSync(file, `${lines.map((l, i) => (i === 1 ? l.replace(/"hash":"[0-9a-f]+",?/, '') : l)).join('\n')}\n`);
    const stripped = await runCli(['audit', 'verify', 'audit.jsonl', '--json'], { home: tmp.home });
    expect(stripped.code).toBe(1);
    expect(auditVerifySchema.parse(stripped.json()).result.state).toBe('tampered');
  });

  it('verify tells a torn tail (a crash) from tampering, and --repair removes only the torn line', async () => {
    const lines = writeChain(4);
    const intact = `${lines.join('\n')}\n`;
    writeFileSync(file, `${intact}{"v":1,"time":"2026-`);
    const r = await runCli(['audit', 'verify', 'audit.jsonl', '--json'], { home: tmp.home });
    expect(r.code).toBe(1);
    expect(auditVerifySchema.parse(r.json()).result).toMatchObject({
      ok: false,
      state: 'torn-tail',
      count: 4,
      broken: { line: 5, code: expect.toBeTrustCode('AUDIT_TORN_TAIL') },
    });
    const human = await runCli(['audit', 'verify', 'audit.jsonl'], { home: tmp.home });
    expect(human.stdout).toContain('is incomplete: a write was interrupted');
    expect(human.stdout).toContain('not tampering');
    expect(human.stdout).toContain('--repair');
    expect(readFileSync(file, 'utf8')).toBe(`${intact}{"v":1,"time":"2026-`);
    const fixed = await runCli(['audit', 'verify', 'audit.jsonl', '--repair'], { home: tmp.home });
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain('removed the incomplete line 5 (20 byte(s)');
    expect(fixed.stdout).toContain('{"v":1,"time":"2026-');
    expect(fixed.stdout).toContain('4 event(s), the chain is intact');
    expect(readFileSync(file, 'utf8')).toBe(intact);
    writeFileSync(file, `${intact}x`);
    const j = await runCli(['audit', 'verify', 'audit.jsonl', '--repair', '--json'], { home: tmp.home });
    expect(auditVerifySchema.parse(j.json()).result).toMatchObject({
      ok: true,
      state: 'intact',
      count: 4,
      repaired: { line: 5, removedBytes: 1, removed: 'x' },
    });
  });

  it('verify --repair refuses a tampered file with a torn tail and leaves it as it is', async () => {
    const lines = writeChain(4);
    const damaged = `${lines.map((x, i) => (i === 1 ? x.replace('"deny"', '"allow"') : x)).join('\n')}\n{"v":1`;
    writeFileSync(file, damaged);
    const r = await runCli(['audit', 'verify', 'audit.jsonl', '--repair', '--json'], { home: tmp.home });
    expect(r.code).toBe(1);
    expect(auditVerifySchema.parse(r.json()).result).toMatchObject({ ok: false, state: 'tampered' });
    expect(readFileSync(file, 'utf8')).toBe(damaged);
    const human = await runCli(['audit', 'verify', 'audit.jsonl'], { home: tmp.home });
    expect(human.stdout).toContain('not what a crash leaves');
  });

  it('verify and tail read the audit table of an .adf agent file', async () => {
    expect((await runCli(['agent', 'new', 'a.adf'], { home: tmp.home })).code).toBe(0);
    const r = await runCli(['audit', 'verify', 'a.adf', '--json'], { home: tmp.home });
    expect(r.code).toBe(0);
    expect(auditVerifySchema.parse(r.json()).result).toMatchObject({ ok: true, format: 'adf' });
    const t = await runCli(['audit', 'tail', 'a.adf', '--json'], { home: tmp.home });
    expect(auditTailSchema.parse(t.json()).result.chain.ok).toBe(true);
  });

  it('tail prints the last events escaped, and -n limits them', async () => {
    writeChain(6);
    const r = await runCli(['audit', 'tail', 'audit.jsonl', '-n', '2'], { home: tmp.home });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(r.stdout).toContain('https://h5.test/');
    expect(r.stdout).not.toContain('\u001b');
    const j = auditTailSchema.parse(
      (await runCli(['audit', 'tail', 'audit.jsonl', '-n', '0', '--json'], { home: tmp.home })).json(),
    );
    expect(j.result).toMatchObject({ total: 6, chain: { ok: true } });
    expect(j.result.events).toHaveLength(6);
  });

  it.each([
    [['audit', 'verify', 'missing.jsonl'], 1, 'AUDIT_FILE_READ'],
    [['audit', 'verify', 'agent.adf'], 1, 'CLI_FILE_NOT_FOUND'],
    [['audit', 'verify', 'agent.adf', '--repair'], 2, 'CLI_USAGE_INVALID_VALUE'],
    [['audit', 'tail'], 2, 'CLI_USAGE_MISSING_ARGUMENT'],
    [['audit', 'tail', 'audit.jsonl', '-n', 'x'], 2, 'CLI_USAGE_INVALID_VALUE'],
  ])('%j exits %i with %s', async (argv, exit, code) => {
    const r = await runCli([...argv, '--json'], { home: tmp.home });
    expect(r.code).toBe(exit);
    expect(failureSchema.parse(r.json()).error.code).toBe(code);
  });
});
