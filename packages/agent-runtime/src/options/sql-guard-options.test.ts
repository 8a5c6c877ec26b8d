import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { type SqlGuard, createSqlGuard } from '../sql/sql-guard.js';
import { sqlGuardOptionsSchema } from './sql-guard-options.js';
import { checkOptions } from './strict-options.js';
import { describeStrictOptions } from './strict-options.test-helper.js';

const dir = mkdtempSync(join(tmpdir(), 'sql-guard-options-'));
const adf = createAdf(join(dir, 'agent.adf'));
afterAll(() => adf.close());

describeStrictOptions('createSqlGuard checks its options once, strictly', [
  {
    name: 'createSqlGuard',
    make: (x) => createSqlGuard(adf, { timeoutMs: 5_000, ...x }),
    release: (made) => (made as SqlGuard).close(),
    typo: 'executeTimoutMs',
    meant: 'executeTimeoutMs',
    wrong: -1,
  },
  {
    name: 'createSqlGuard',
    make: (x) => createSqlGuard(adf, { ...x }),
    release: (made) => (made as SqlGuard).close(),
    typo: 'mechanisms',
    meant: 'mechanism',
    wrong: 'fork',
  },
]);

describe('checked SQL guard options keep their identity', () => {
  it('returns the very options object', () => {
    const options = { mechanism: 'thread' as const, maxRows: 10 };
    expect(checkOptions('createSqlGuard', sqlGuardOptionsSchema, options)).toBe(options);
  });

  it('refuses a misspelt cap before starting any SQL host', () => {
    expect(() => createSqlGuard(adf, { maxRow: 10 } as never)).toThrowTrustError('AGENT_OPTIONS_INVALID');
  });
});
