import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allow } from '@trust/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdf, type AdfFile } from '../adf/adf-file.js';
import type { ToolContext } from '../gate/tool-definition.js';
import { createShell } from '../shell/shell-interpreter.js';
import type { ShellGate } from '../shell/shell-types.js';
import { createDbExecuteTool, createDbQueryTool } from './db-tools.js';
import { createSqlGuard, type SqlGuard } from './sql-guard.js';

// The shell's sqlite3 reaches agent SQL only through db_query/db_execute, so it gets the same SQL
// process and caps: a runaway statement typed into the shell ends at the cap, the host answering.
let adf: AdfFile;
let guard: SqlGuard;
let gate: ShellGate;

beforeAll(async () => {
  adf = createAdf(join(mkdtempSync(join(tmpdir(), 'sql-shell-')), 'a.adf'));
  adf.db.exec(
    'CREATE TABLE local_big (x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000) ' +
      'INSERT INTO local_big SELECT i FROM c',
  );
  guard = createSqlGuard(adf, { timeoutMs: 400, executeTimeoutMs: 400 });
  await guard.runQuery('select 1');
  const tools = { db_query: createDbQueryTool(guard), db_execute: createDbExecuteTool(guard) };
  const ctx = { authorized: false } as ToolContext;
  gate = {
    preflight: async () => allow('test'),
    call: async (tool, args) => tools[tool as keyof typeof tools].run(args as never, ctx),
  };
});
afterAll(async () => {
  await guard.close();
  adf.close();
});

describe('the shell sqlite3 command runs in the SQL process', () => {
  it('a runaway query typed into the shell fails with SQL_TIMEOUT at the cap while timers keep firing', async () => {
    let ticks = 0;
    const t = setInterval(() => {
      ticks++;
    }, 20);
    const t0 = performance.now();
    const r = await createShell({ gate }).run('sqlite3 "select count(*) from local_big a, local_big b, local_big c"');
    clearInterval(t);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('ran longer than 400 ms');
    expect(performance.now() - t0).toBeLessThan(400 + 1_500);
    expect(ticks).toBeGreaterThan(3);
  });

  it('bounded recursion and idempotent DDL work from the shell', async () => {
    const shell = createShell({ gate });
    expect(
      (
        await shell.run(
          'sqlite3 "create table if not exists local_n (v)"; sqlite3 "create table if not exists local_n (v)"',
        )
      ).exitCode,
    ).toBe(0);
    const r = await shell.run(
      'sqlite3 "with recursive c(x) as (select 1 union all select x + 1 from c where x < 5) select sum(x) from c"',
    );
    expect(r).toMatchObject({ exitCode: 0, stdout: '15\n' });
  });
});
