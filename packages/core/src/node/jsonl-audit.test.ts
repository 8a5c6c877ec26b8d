import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditInput } from '../audit-event.js';
import { GENESIS_HASH, verifyChain } from '../audit-chain.js';
import { createPrincipal } from '../principal.js';
import { createJsonlAuditSink } from './jsonl-audit.js';
import { readJsonlAudit } from './jsonl-audit-read.js';
import { thrownBy } from '../testing/thrown-by.js';

const input = (n: number): AuditInput => ({
  principal: createPrincipal('process', 'run-1'),
  action: 'sandbox.spawn',
  target: `/bin/tool-${n}`,
  decision: 'allow',
});

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'trust-audit-'));
  file = join(dir, 'audit.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('createJsonlAuditSink', () => {
  it('appends one line per event, mode 0600, and the file verifies', () => {
    const sink = createJsonlAuditSink(file, { fsync: false });
    const a = sink.record(input(1));
    const b = sink.record(input(2));
    sink.close();
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(3);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(a.prev).toBe(GENESIS_HASH);
    expect(b.prev).toBe(a.hash);
    const events = readJsonlAudit(file);
    expect(events).toEqual([a, b]);
    expect(verifyChain(events)).toEqual({ ok: true, count: 2, head: b.hash });
  });

  it('continues the chain of an existing file', () => {
    const first = createJsonlAuditSink(file);
    const a = first.record(input(1));
    first.close();
    const second = createJsonlAuditSink(file);
    expect(second.head()).toBe(a.hash);
    second.record(input(2));
    second.close();
    expect(verifyChain(readJsonlAudit(file))).toMatchObject({ ok: true, count: 2 });
  });

  it('refuses to record after close', () => {
    const sink = createJsonlAuditSink(file);
    sink.close();
    expect(() => sink.record(input(1))).toThrowTrustError('AUDIT_SINK_CLOSED');
  });

  it('reads the last event of a file larger than one read chunk', () => {
    const sink = createJsonlAuditSink(file, { fsync: false });
    let last = sink.record(input(0));
    for (let i = 1; i < 800; i++) last = sink.record({ ...input(i), details: { pad: 'x'.repeat(100) } });
    sink.close();
    expect(statSync(file).size).toBeGreaterThan(64 * 1024);
    const reopened = createJsonlAuditSink(file);
    expect(reopened.head()).toBe(last.hash);
    reopened.close();
  });

  it.each([
    ['an incomplete last line', (f: string) => appendFileSync(f, '{"v":1,"ti')],
    ['a last line that is not JSON', (f: string) => appendFileSync(f, 'garbage\n')],
    ['a malformed last event', (f: string) => appendFileSync(f, '{"v":1}\n')],
    ['an edited last event', (f: string) => writeFileSync(f, readFileSync(f, 'utf8').replace('tool-2', 'tool-9'))],
  ])('rejects %s with AUDIT_FILE_CORRUPT', (_label, damage) => {
    const sink = createJsonlAuditSink(file);
    sink.record(input(1));
    sink.record(input(2));
    sink.close();
    damage(file);
    const err = thrownBy(() => createJsonlAuditSink(file));
    expect(err.code).toBeTrustCode('AUDIT_FILE_CORRUPT');
    expect(err.hint).toContain('move the file aside');
  });
});

describe('readJsonlAudit', () => {
  it('reports an incomplete last line as a torn tail, not as an event, even when it is JSON', () => {
    const sink = createJsonlAuditSink(file);
    sink.record(input(1));
    const b = sink.record(input(2));
    sink.close();
    // The second event without its newline: a write cut short one byte before the end.
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, -1));
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[1] as string).hash).toBe(b.hash);
    const err = thrownBy(() => readJsonlAudit(file));
    expect(err.code).toBeTrustCode('AUDIT_FILE_CORRUPT');
    expect(err.problems.map((p) => [p.code, p.path])).toEqual([['AUDIT_TORN_TAIL', 'line 2']]);
    expect(err.hint).toContain('--repair');
  });

  it('with allowTornTail returns the events before a torn tail, but still throws for a bad complete line', () => {
    const sink = createJsonlAuditSink(file);
    const a = sink.record(input(1));
    sink.close();
    appendFileSync(file, '{"v":1,"ti');
    expect(readJsonlAudit(file, { allowTornTail: true }).map((e) => e.hash)).toEqual([a.hash]);
    appendFileSync(file, '\nnope\n');
    expect(() => readJsonlAudit(file, { allowTornTail: true })).toThrow(/line 2 is not JSON/);
  });

  it('names every bad line', () => {
    const sink = createJsonlAuditSink(file);
    sink.record(input(1));
    sink.close();
    appendFileSync(file, 'nope\n{"v":2}\n\n');
    const err = thrownBy(() => readJsonlAudit(file));
    expect(err.code).toBeTrustCode('AUDIT_FILE_CORRUPT');
    expect(err.problems.map((p) => [p.code, p.path])).toEqual([
      ['AUDIT_LINE_INVALID', 'line 2'],
      ['AUDIT_LINE_INVALID', 'line 3'],
      ['AUDIT_LINE_INVALID', 'line 4'],
    ]);
  });

  it('reads an empty file as no events, and a missing file as AUDIT_FILE_READ', () => {
    writeFileSync(file, '');
    expect(readJsonlAudit(file)).toEqual([]);
    expect(() => readJsonlAudit(join(dir, 'missing.jsonl'))).toThrowTrustError('AUDIT_FILE_READ');
  });

  it('lets verifyChain find a deleted line', () => {
    const sink = createJsonlAuditSink(file);
    for (let i = 0; i < 4; i++) sink.record(input(i));
    sink.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.splice(1, 1);
    writeFileSync(file, lines.join('\n'));
    expect(verifyChain(readJsonlAudit(file))).toMatchObject({
      ok: false,
      index: 1,
      code: expect.toBeTrustCode('AUDIT_PREV_MISMATCH'),
    });
  });
});
