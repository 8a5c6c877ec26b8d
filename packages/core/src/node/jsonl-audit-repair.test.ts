import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditInput } from '../audit-event.js';
import { verifyChain } from '../audit-chain.js';
import { createPrincipal } from '../principal.js';
import { createJsonlAuditSink } from './jsonl-audit.js';
import { readJsonlAudit } from './jsonl-audit-read.js';
import { repairJsonlAudit } from './jsonl-audit-repair.js';

const input = (n: number): AuditInput => ({
  principal: createPrincipal('process', 'run-1'),
  action: 'sandbox.spawn',
  target: `/bin/tool-${n}`,
  decision: 'allow',
});

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trust-audit-repair-'));
  file = join(dir, 'audit.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function written(n: number): string {
  const sink = createJsonlAuditSink(file, { fsync: false });
  for (let i = 0; i < n; i++) sink.record(input(i));
  sink.close();
  return readFileSync(file, 'utf8');
}

describe('repairJsonlAudit', () => {
  it('removes only the torn tail, says what it removed, and the sink opens again', () => {
    const intact = written(3);
    appendFileSync(file, '{"v":1,"time":"2026-');
    expect(() => createJsonlAuditSink(file)).toThrowTrustError('AUDIT_FILE_CORRUPT');
    const r = repairJsonlAudit(file);
    expect(r).toEqual({
      torn: true,
      line: 4,
      removedBytes: 20,
      removed: '{"v":1,"time":"2026-',
      keptBytes: Buffer.byteLength(intact),
      count: 3,
      changed: true,
    });
    expect(readFileSync(file, 'utf8')).toBe(intact);
    const sink = createJsonlAuditSink(file);
    sink.record(input(9));
    sink.close();
    expect(verifyChain(readJsonlAudit(file))).toMatchObject({ ok: true, count: 4 });
  });

  it('a dry run reports the same and changes nothing', () => {
    written(2);
    appendFileSync(file, 'x');
    const before = readFileSync(file);
    expect(repairJsonlAudit(file, { dryRun: true })).toMatchObject({
      torn: true,
      line: 3,
      removedBytes: 1,
      removed: 'x',
      changed: false,
    });
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('a file without a torn tail is left alone', () => {
    const intact = written(2);
    expect(repairJsonlAudit(file)).toMatchObject({ torn: false, removedBytes: 0, changed: false, count: 2 });
    expect(readFileSync(file, 'utf8')).toBe(intact);
  });

  it('a torn file made only of the torn line is cut to empty', () => {
    writeFileSync(file, '{"v":1');
    expect(repairJsonlAudit(file)).toMatchObject({ torn: true, line: 1, keptBytes: 0, count: 0 });
    expect(statSync(file).size).toBe(0);
  });

  it.each([
    ['an edited event', (t: string) => t.replace('tool-1', 'tool-7')],
    [
      'a deleted event',
      (t: string) =>
        t
          .split('\n')
          .filter((_l, i) => i !== 1)
          .join('\n'),
    ],
    ['a complete line that is not an event', (t: string) => t.replace('\n', '\ngarbage\n')],
  ])('refuses with AUDIT_REPAIR_REFUSED and changes nothing when the rest shows %s', (_label, damage) => {
    writeFileSync(file, `${damage(written(3))}{"v":1,"ti`);
    const before = readFileSync(file);
    expect(() => repairJsonlAudit(file)).toThrowTrustError('AUDIT_REPAIR_REFUSED');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('a missing file is AUDIT_FILE_READ', () => {
    expect(() => repairJsonlAudit(join(dir, 'missing.jsonl'))).toThrowTrustError('AUDIT_FILE_READ');
  });
});
