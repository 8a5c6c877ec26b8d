import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAdf, type AdfFile } from './adf-file.js';

let dir: string;
let adf: AdfFile;
let other: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'write-arbiter-'));
  adf = createAdf(join(dir, 'a.adf'));
  other = new Database(adf.path);
});
afterEach(() => {
  if (other.inTransaction) other.exec('ROLLBACK');
  other.close();
  adf.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('host writes under a held write lock', () => {
  it('preempts a registered writer that may hold the lock, then writes', () => {
    let preempted = 0;
    other.exec('BEGIN IMMEDIATE');
    adf.writers.register({
      mayHoldWriteLock: () => true,
      preempt: () => {
        preempted++;
        other.exec('ROLLBACK');
      },
    });
    const id = adf.logs.add({ level: 'info', message: 'after preempt' });
    expect(preempted).toBe(1);
    expect(adf.logs.list().map((l) => l.id)).toContain(id);
  });

  it('fails loudly with ADF_BUSY when the lock is still held after preempting (never a silent loss)', () => {
    other.exec('BEGIN IMMEDIATE');
    adf.writers.register({ mayHoldWriteLock: () => true, preempt: () => undefined });
    expect(() => adf.inbox.insert({ content: 'x' })).toThrowTrustError('ADF_BUSY');
    other.exec('ROLLBACK');
    expect(adf.inbox.insert({ content: 'x' }).content).toBe('x'); // the connection is usable again
  });

  it('preempts nobody when the lock is free, even with a writer in flight', () => {
    let preempted = 0;
    adf.writers.register({
      mayHoldWriteLock: () => true,
      preempt: () => {
        preempted++;
      },
    });
    adf.logs.add({ level: 'info', message: 'uncontended' });
    expect(preempted).toBe(0);
  });

  it('a deferred transaction that lost its snapshot to another commit starts over without preempting anyone', () => {
    let preempted = 0;
    adf.writers.register({
      mayHoldWriteLock: () => true,
      preempt: () => {
        preempted++;
      },
    });
    adf.db.exec('CREATE TABLE local_t (x INTEGER)');
    let attempts = 0;
    adf.db.transaction(() => {
      attempts++;
      adf.db.prepare('SELECT count(*) FROM local_t').pluck().get();
      if (attempts === 1) other.prepare('INSERT INTO local_t VALUES (1)').run();
      adf.db.prepare('INSERT INTO local_t VALUES (2)').run();
    })();
    expect(attempts).toBe(2);
    expect(preempted).toBe(0);
    expect(adf.db.prepare('SELECT x FROM local_t ORDER BY x').pluck().all()).toEqual([1, 2]);
  });

  it('keeps reads, transactions, RETURNING and statement chaining working through the wrapped connection', () => {
    adf.db.exec('CREATE TABLE local_t (x INTEGER)');
    const ins = adf.db.prepare('INSERT INTO local_t VALUES (?) RETURNING x');
    expect(ins.get(7)).toEqual({ x: 7 });
    adf.transaction(() => {
      adf.db.prepare('INSERT INTO local_t VALUES (?)').run(8);
    });
    expect(adf.db.prepare('SELECT x FROM local_t ORDER BY x').pluck().all()).toEqual([7, 8]);
    expect(adf.db instanceof Database).toBe(true);
  });
});
