import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdf, type AdfFile } from '../adf/adf-file.js';
import { createSqlGuard, type SqlGuard } from './sql-guard.js';

let adf: AdfFile;
let guard: SqlGuard;

beforeAll(() => {
  adf = createAdf(join(mkdtempSync(join(tmpdir(), 'sql-')), 'a.adf'), {
    template: {
      v: 1,
      security: { table_protections: { local_ao: 'append_only', local_auth: 'authorized' } },
      limits: { max_sql_rows: 5 },
    },
  });
  adf.db.exec(`
    CREATE TABLE local_notes (id INTEGER PRIMARY KEY, body TEXT, tag TEXT UNIQUE);
    CREATE TABLE local_ao (id INTEGER PRIMARY KEY, v TEXT);
    CREATE TABLE local_auth (id INTEGER PRIMARY KEY, v TEXT);
    CREATE TABLE local_src (x);
    CREATE TABLE local_log (x);
    CREATE VIEW local_view_ok AS SELECT body FROM local_notes;
    CREATE TRIGGER local_src_t AFTER INSERT ON local_src BEGIN INSERT INTO local_log VALUES (new.x); END;
    INSERT INTO local_notes (body, tag)
      VALUES ('a','t1'),('b','t2'),('c','t3'),('d','t4'),('e','t5'),('f','t6'),('g','t7');
    INSERT INTO local_ao (v) VALUES ('first');
    INSERT INTO adf_identity (purpose, value) VALUES ('crypto:signing:private_key', x'00112233');
  `);
  adf.logs.add({ level: 'info', message: 'hello' });
  guard = createSqlGuard(adf);
});
afterAll(async () => {
  await guard.close();
  adf.close();
});

type Case = [string, string, 'allow' | string];

// [mode, sql, expected code]
const QUERY: Case[] = [
  ['q', 'select * from local_notes', 'allow'],
  ['q', 'SELECT body FROM "local_notes" WHERE id = 1', 'allow'],
  ['q', 'select * from [local_notes]', 'allow'],
  ['q', 'select * from `local_notes`', 'allow'],
  ['q', 'select * from main.local_notes', 'allow'],
  ['q', 'select * from adf_loop', 'allow'],
  ['q', 'select * from adf_inbox', 'allow'],
  ['q', 'select * from adf_outbox', 'allow'],
  ['q', 'select path, size from adf_files', 'allow'],
  ['q', 'select * from adf_timers', 'allow'],
  ['q', 'select * from adf_audit', 'allow'],
  ['q', 'select * from adf_logs', 'allow'],
  ['q', 'select * from adf_tasks', 'allow'],
  ['q', 'select name from sqlite_schema', 'allow'],
  ['q', 'select 1', 'allow'],
  ['q', 'values (1), (2)', 'allow'],
  ['q', 'with c(x) as (select 1) select * from c', 'allow'],
  ['q', 'with c as materialized (select * from local_notes) select * from c, c as d', 'allow'],
  ['q', 'select a.body from local_notes a join local_notes b on a.id = b.id order by 1', 'allow'],
  // Recursive CTEs compile and are allowed: the wall-clock cap (a killed SQL process) decides.
  ['q', 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c', 'allow'],
  ['q', 'with c(x) as (select 1 union select x + 1 from c where x < 10) select * from c', 'allow'],
  ['q', 'select * from local_view_ok', 'allow'],
  ['q', '/* lead */ -- c\n select 1', 'allow'],
  ['q', 'select * from adf_identity', 'SQL_TABLE_DENIED'],
  ['q', 'select * from adf_config', 'SQL_TABLE_DENIED'],
  ['q', 'select * from adf_meta', 'SQL_TABLE_DENIED'],
  ['q', 'select * from ADF_CONFIG', 'SQL_TABLE_DENIED'],
  ['q', 'select * from [adf_identity]', 'SQL_TABLE_DENIED'],
  ['q', 'select * from `adf_identity`', 'SQL_TABLE_DENIED'],
  ['q', 'select * from "adf_identity"', 'SQL_TABLE_DENIED'],
  ['q', 'select * from main.adf_identity', 'SQL_TABLE_DENIED'],
  ['q', 'select * from "main"."adf_config"', 'SQL_TABLE_DENIED'],
  ['q', "select 1 as [x'], * from adf_identity as [y']", 'SQL_TABLE_DENIED'],
  ['q', "select 1 as `x'`, * from adf_config as `y'`", 'SQL_TABLE_DENIED'],
  ['q', "select 'x' as \"a'\", * from adf_meta", 'SQL_TABLE_DENIED'],
  ['q', 'select * from local_notes where id in (select length(value) from adf_identity)', 'SQL_TABLE_DENIED'],
  ['q', 'select body from local_notes union select config_json from adf_config', 'SQL_TABLE_DENIED'],
  ['q', 'select body from local_notes union all select value from adf_meta', 'SQL_TABLE_DENIED'],
  ['q', 'with s as (select * from adf_identity) select * from s', 'SQL_TABLE_DENIED'],
  ['q', 'with recursive r(x) as (select purpose from adf_identity) select * from r', 'SQL_TABLE_DENIED'],
  [
    'x',
    'insert into local_notes (body) with recursive c(x) as (select 1 union all select x + 1 from c where x < 3) ' +
      'select x from c',
    'allow',
  ],
  ['q', 'select (select config_json from adf_config) as c', 'SQL_TABLE_DENIED'],
  ['q', 'select * from local_notes join adf_identity on 1', 'SQL_TABLE_DENIED'],
  ['q', "select exists(select 1 from adf_identity where purpose like 'crypto%')", 'SQL_TABLE_DENIED'],
  ['q', 'select count(*) from adf_meta', 'SQL_TABLE_DENIED'],
  ['q', "select * from pragma_table_info('adf_identity')", 'SQL_VIRTUAL_TABLE'],
  ['q', 'select * from pragma_database_list', 'SQL_VIRTUAL_TABLE'],
  ['q', "select * from json_each('[1]')", 'allow'],
  ['q', 'select key, value, type from json_tree(\'{"a":[1,{"b":2}]}\')', 'allow'],
  ['q', "select j.value from local_notes, json_each('[' || local_notes.id || ']') as j", 'allow'],
  ['q', 'select count(*) from adf_loop, json_each(adf_loop.content_json) where json_valid(content_json)', 'allow'],
  ['q', 'select * from json_each((select config_json from adf_config))', 'SQL_TABLE_DENIED'],
  ['q', 'select j.* from adf_identity i, json_tree(i.value) j', 'SQL_TABLE_DENIED'],
  ['q', "select * from json_each('[1]') where value in (select length(value) from adf_meta)", 'SQL_TABLE_DENIED'],
  ['q', 'select * from dbstat', 'SQL_VIRTUAL_TABLE'],
  ['q', "select * from json_each('[1]'), pragma_table_info('adf_identity')", 'SQL_VIRTUAL_TABLE'],
  ['q', "select load_extension('/tmp/x.so')", 'SQL_FUNCTION_DENIED'],
  ['q', 'pragma table_info(adf_identity)', 'SQL_VERB_DENIED'],
  ['q', 'PRAGMA writable_schema = 1', 'SQL_VERB_DENIED'],
  ['q', "attach database ':memory:' as x", 'SQL_VERB_DENIED'],
  ['q', 'detach x', 'SQL_VERB_DENIED'],
  ['q', 'explain select * from adf_identity', 'SQL_VERB_DENIED'],
  ['q', 'select 1; select * from adf_identity', 'SQL_MULTIPLE_STATEMENTS'],
  ['q', 'select 1; ', 'allow'],
  ['q', "insert into local_notes (body) values ('x')", 'SQL_VERB_DENIED'],
  ['q', 'delete from local_notes', 'SQL_VERB_DENIED'],
  ['q', 'with x as (select 1) delete from local_notes', 'SQL_WRITE_DENIED'],
  ['q', 'vacuum', 'SQL_VERB_DENIED'],
  ['q', 'begin', 'SQL_VERB_DENIED'],
  ['q', 'select * from nosuch', 'SQL_INVALID'],
  ['q', 'select * from temp.sqlite_temp_master', 'SQL_OTHER_DATABASE'],
];

const EXECUTE: Case[] = [
  ['x', "insert into local_notes (body) values ('new')", 'allow'],
  ['x', "insert into [local_notes] (body) values ('new')", 'allow'],
  ['x', "update `local_notes` set body = 'z' where id = 1", 'allow'],
  ['x', 'delete from "local_notes" where id = 99', 'allow'],
  ['x', 'insert into local_notes (body) select message from adf_logs', 'allow'],
  ['x', 'create table local_x (a, b)', 'allow'],
  ['x', 'create index local_notes_body on local_notes(body)', 'allow'],
  ['x', "insert into local_ao (v) values ('more')", 'allow'],
  ['x', 'insert into local_src values (1)', 'allow'],
  ['x', "insert into adf_logs (level, message, created_at) values ('x','y','z')", 'SQL_WRITE_DENIED'],
  ['x', "update adf_config set config_json = '{}'", 'SQL_WRITE_DENIED'],
  ['x', 'update local_notes set body = (select config_json from adf_config)', 'SQL_TABLE_DENIED'],
  ['x', 'alter table local_notes add column extra text', 'allow'],
  ['x', 'alter table local_src rename to local_src2', 'allow'],
  ['x', "update sqlite_sequence set seq = 0 where name = 'adf_logs'", 'SQL_WRITE_DENIED'],
  ['x', "update [adf_tasks] set status = 'completed'", 'SQL_WRITE_DENIED'],
  ['x', 'delete from `adf_audit`', 'SQL_WRITE_DENIED'],
  ['x', 'delete from main."adf_loop"', 'SQL_WRITE_DENIED'],
  ['x', 'insert into local_notes (body) select value from adf_identity', 'SQL_TABLE_DENIED'],
  ['x', 'create table local_y as select * from adf_identity', 'SQL_TABLE_DENIED'],
  ['x', "create table local_y as select 1 as [a'], * from adf_identity as [b']", 'SQL_TABLE_DENIED'],
  ['x', 'create table local_y as select * from `adf_config`', 'SQL_TABLE_DENIED'],
  ['x', 'create table local_y as select * from adf_loop', 'allow'],
  ['x', 'create table adf_evil (a)', 'SQL_DDL_DENIED'],
  ['x', 'create table notes (a)', 'SQL_DDL_DENIED'],
  ['x', 'drop table adf_logs', 'SQL_WRITE_DENIED'],
  ['x', 'create view local_v as select * from adf_identity', 'SQL_VIEW_PROTECTED'],
  ['x', 'create view local_v2 as select * from [adf_config]', 'SQL_VIEW_PROTECTED'],
  ['x', 'create trigger local_t after insert on local_notes begin delete from adf_loop; end', 'SQL_TRIGGER_PROTECTED'],
  ['x', 'create trigger local_t2 after insert on adf_inbox begin select 1; end', 'SQL_DDL_DENIED'],
  ['x', 'create temp table local_tmp (a)', 'SQL_OTHER_DATABASE'],
  ['x', 'create temp trigger local_tt after insert on local_notes begin select 1; end', 'SQL_OTHER_DATABASE'],
  ['x', 'create virtual table local_fts using fts5(a)', 'SQL_VIRTUAL_TABLE'],
  ['x', 'create table local_ai (id integer primary key autoincrement, v text)', 'allow'],
  ['x', 'insert into local_notes (body) select value from json_each(\'["p","q"]\')', 'allow'],
  ['x', 'insert into local_notes (body) select j.value from adf_config, json_each(config_json) j', 'SQL_TABLE_DENIED'],
  ['x', "update sqlite_sequence set seq = 9223372036854775807 where name = 'adf_logs'", 'SQL_WRITE_DENIED'],
  ['x', "insert into sqlite_sequence (name, seq) values ('adf_timers', 1)", 'SQL_WRITE_DENIED'],
  ['x', "delete from sqlite_sequence where name = 'adf_logs'", 'SQL_WRITE_DENIED'],
  ['x', 'alter table local_notes rename to adf_x', 'SQL_DDL_DENIED'],
  ['x', "update local_ao set v = 'changed'", 'SQL_APPEND_ONLY'],
  ['x', 'delete from local_ao', 'SQL_APPEND_ONLY'],
  ['x', 'delete from local_ao where id = 1', 'SQL_APPEND_ONLY'],
  ['x', "insert or replace into local_ao values (1, 'overwrite')", 'SQL_APPEND_ONLY'],
  ['x', "replace into local_ao values (1, 'overwrite')", 'SQL_APPEND_ONLY'],
  ['x', "insert into local_ao values (1, 'x') on conflict(id) do update set v = 'y'", 'SQL_APPEND_ONLY'],
  ['x', 'drop table local_ao', 'SQL_APPEND_ONLY'],
  ['x', "insert into local_auth (v) values ('x')", 'SQL_REQUIRES_AUTHORIZED'],
  ['x', 'pragma foreign_keys = off', 'SQL_VERB_DENIED'],
  ['x', "attach ':memory:' as x", 'SQL_VERB_DENIED'],
  ['x', 'vacuum', 'SQL_VERB_DENIED'],
  ['x', 'reindex', 'SQL_VERB_DENIED'],
  ['x', 'analyze', 'SQL_VERB_DENIED'],
  ['x', 'begin immediate', 'SQL_VERB_DENIED'],
  ['x', 'select * from local_notes', 'SQL_VERB_DENIED'],
  ['x', "insert into local_notes (body) values ('a'); delete from adf_loop", 'SQL_MULTIPLE_STATEMENTS'],
];

describe('SQL guard decisions (compiled statement, not text)', () => {
  it.each([...QUERY, ...EXECUTE])('%s %s -> %s', async (mode, sql, expected) => {
    const d = mode === 'q' ? await guard.checkQuery(sql) : await guard.checkExecute(sql);
    if (expected === 'allow') expect(d).toMatchObject({ allow: true });
    else if (d.allow) {
      // DDL is allowed provisionally and judged on the resulting schema diff, which must refuse it.
      expect(mode).toBe('x');
      await expect(guard.runExecute(sql)).rejects.toMatchObject({ code: expected });
    } else expect(d).toMatchObject({ allow: false, code: expected });
  });

  it('has at least 60 cases', () => expect(QUERY.length + EXECUTE.length).toBeGreaterThanOrEqual(60));
});

describe('running agent SQL', async () => {
  it('db_query caps rows and reports truncation', async () => {
    const r = await guard.runQuery('select body from local_notes order by id');
    expect(r.rows).toHaveLength(5);
    expect(r.truncated).toBe(true);
    expect(r.columns).toEqual(['body']);
  });

  it('db_query runs on a read-only connection even if a check were wrong', async () => {
    await expect(guard.runQuery('delete from local_notes')).rejects.toHaveTrustCode('SQL_VERB_DENIED');
    expect(adf.db.prepare('select count(*) from local_notes').pluck().get()).toBeGreaterThan(0);
  });

  it('a refused DDL leaves no trace in the schema', async () => {
    await expect(guard.runExecute('create view local_leak as select * from adf_meta')).rejects.toHaveTrustCode(
      'SQL_VIEW_PROTECTED',
    );
    expect(adf.db.prepare("select count(*) from sqlite_schema where name = 'local_leak'").pluck().get()).toBe(0);
  });

  it('authorized code may write authorized tables and mutate append_only ones', async () => {
    expect((await guard.runExecute("insert into local_auth (v) values ('ok')", { authorized: true })).changes).toBe(1);
    expect(await guard.checkExecute("update local_ao set v = 'x'", { authorized: true })).toMatchObject({
      allow: true,
    });
  });

  it('a trigger planted after the check is caught at use (verdict keyed on schema version)', async () => {
    expect(await guard.checkExecute("insert into local_notes (body) values ('p')")).toMatchObject({ allow: true });
    adf.db.exec('CREATE TRIGGER local_planted AFTER INSERT ON local_notes BEGIN DELETE FROM adf_loop; END');
    expect(await guard.checkExecute("insert into local_notes (body) values ('p')")).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('SQL_WRITE_DENIED'),
    });
    adf.db.exec('DROP TRIGGER local_planted');
  });

  it('a view redefined to reach a protected table is refused at use', async () => {
    adf.db.exec('CREATE VIEW local_sneaky AS SELECT 1 AS x');
    expect((await guard.runQuery('select * from local_sneaky')).rows).toEqual([{ x: 1 }]);
    adf.db.exec('DROP VIEW local_sneaky; CREATE VIEW local_sneaky AS SELECT value AS x FROM adf_identity');
    expect(await guard.checkQuery('select * from local_sneaky')).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('SQL_TABLE_DENIED'),
    });
    adf.db.exec('DROP VIEW local_sneaky');
  });

  it('bound parameters work', async () => {
    expect((await guard.runQuery('select body from local_notes where id = ?', [2])).rows).toEqual([{ body: 'b' }]);
  });

  it(
    'values JSON cannot carry cross to the host exactly (blobs, ±Infinity, -0, lone surrogates), ' +
      'and repeated column names keep the last value',
    async () => {
      const r = await guard.runQuery(
        "select x'00ff' as b, 1e999 as inf, -1e999 as ninf, -0.0 as z, char(55296) as s, 1 as d, 2 as d",
      );
      const row = r.rows[0]!;
      expect(row['b']).toBeInstanceOf(Uint8Array);
      expect([...(row['b'] as Uint8Array)]).toEqual([0, 255]);
      expect(row['inf']).toBe(Number.POSITIVE_INFINITY);
      expect(row['ninf']).toBe(Number.NEGATIVE_INFINITY);
      expect(row['s']).toBe(adf.db.prepare('select char(55296)').pluck().get());
      expect(row['d']).toBe(2);
      expect(r.columns).toEqual(['b', 'inf', 'ninf', 'z', 's', 'd', 'd']);
    },
  );
});

// Regressions for the guard's over-blocking: decided by what a statement references, never by text.
describe('idempotent DDL and adf_-looking names are not over-blocked', () => {
  // Promise.resolve().then: the same test ran against the old synchronous guard to see it fail.
  const exec = (sql: string) => Promise.resolve().then(() => guard.runExecute(sql));
  const REPEATABLE = [
    'create table if not exists local_idem (a, b)',
    'create index if not exists local_idem_a on local_idem(a)',
    'drop table if exists local_never_created',
    'drop index if exists local_never_created_ix',
    'drop view if exists local_never_created_v',
    'drop trigger if exists local_never_created_t',
    'create view if not exists local_idem_v as select a from local_idem',
  ];
  it.each(REPEATABLE)('%s runs twice (the second run is a read-only journal-mode query, not a change)', async (sql) => {
    await exec(sql);
    expect(await guard.checkExecute(sql)).toMatchObject({ allow: true });
    await expect(exec(sql)).resolves.toMatchObject({ changes: 0 });
  });

  const ALLOWED: string[] = [
    'create table local_adf_copy (adf_col text)',
    'create view local_v_adfname as select adf_col from local_adf_copy',
    "create view local_v_literal as select 'adf_identity' as s, 'select * from adf_config' as t",
    'create trigger local_t_adfname after insert on local_adf_copy ' +
      "begin insert into local_log values ('adf_meta'); end",
    'create trigger local_t_adfcol after update on local_adf_copy ' +
      'begin update local_adf_copy set adf_col = new.adf_col where 0; end',
  ];
  it.each(ALLOWED)('allows %s', async (sql) => {
    await expect(exec(sql)).resolves.toBeDefined();
  });

  const REFUSED: Case[] = [
    ['x', 'create view local_rv1 as select * from adf_loop', 'SQL_VIEW_PROTECTED'],
    ['x', 'create view local_rv2 as select n.body from local_notes n join adf_inbox i on 1', 'SQL_VIEW_PROTECTED'],
    ['x', 'create view local_rv3 as select (select count(*) from "ADF_IDENTITY") as n', 'SQL_VIEW_PROTECTED'],
    [
      'x',
      'create trigger local_rt1 after insert on local_adf_copy ' +
        'begin insert into local_log select message from adf_logs; end',
      'SQL_TRIGGER_PROTECTED',
    ],
    [
      'x',
      'create trigger local_rt2 after insert on local_adf_copy ' +
        'when (select count(*) from adf_config) > 0 begin select 1; end',
      'SQL_TRIGGER_PROTECTED',
    ],
    [
      'x',
      'create trigger local_rt3 after delete on local_adf_copy begin delete from [adf_tasks]; end',
      'SQL_TRIGGER_PROTECTED',
    ],
    ['x', 'pragma journal_mode = delete', 'SQL_VERB_DENIED'],
    ['q', 'pragma journal_mode', 'SQL_VERB_DENIED'],
  ];
  it.each(REFUSED)('%s %s -> %s', async (mode, sql, code) => {
    const d = mode === 'q' ? await guard.checkQuery(sql) : await guard.checkExecute(sql);
    if (d.allow) await expect(exec(sql)).rejects.toMatchObject({ code });
    else expect(d).toMatchObject({ allow: false, code });
    expect(adf.db.prepare("select count(*) from sqlite_schema where name like 'local_r%'").pluck().get()).toBe(0);
  });

  it('a real journal-mode change is still refused by its opcode, not only by the PRAGMA verb', async () => {
    const { analyzeStatement, buildRootMap } = await import('./statement-analysis.js');
    const a = analyzeStatement(adf.db, 'pragma journal_mode = delete', buildRootMap(adf.db));
    expect(a.hard).toContainEqual(expect.objectContaining({ code: expect.toBeTrustCode('SQL_OPERATION_DENIED') }));
    const q = analyzeStatement(adf.db, 'create table if not exists local_notes (x)', buildRootMap(adf.db));
    expect(q.hard).toEqual([]);
  });
});

describe('json_each/json_tree and AUTOINCREMENT (issue 40)', () => {
  it('json_each and json_tree answer over values and over readable tables', async () => {
    const each = await guard.runQuery("select key, value from json_each('[10, 20]') order by key");
    expect(each.rows).toEqual([
      { key: 0, value: 10 },
      { key: 1, value: 20 },
    ]);
    const tree = await guard.runQuery(`select fullkey from json_tree('{"a":{"b":1}}') where type = 'integer'`);
    expect(tree.rows).toEqual([{ fullkey: '$.a.b' }]);
    const joined = await guard.runQuery(
      "select n.body, j.value from local_notes n, json_each('[1,2]') j where n.id = j.value order by 2",
    );
    expect(joined.rows).toEqual([
      { body: 'a', value: 1 },
      { body: 'b', value: 2 },
    ]);
  });

  it('json_each cannot reach a forbidden table: the read of its argument is judged', async () => {
    await expect(
      guard.runQuery('select value from json_each((select config_json from adf_config))'),
    ).rejects.toHaveTrustCode('SQL_TABLE_DENIED');
    await expect(
      guard.runQuery('select j.value from adf_meta m, json_each(json_array(m.value)) j'),
    ).rejects.toHaveTrustCode('SQL_TABLE_DENIED');
    await expect(guard.runQuery("select * from pragma_table_info('adf_identity')")).rejects.toHaveTrustCode(
      'SQL_VIRTUAL_TABLE',
    );
  });

  it('a local_* table with AUTOINCREMENT gets ids that are never reused', async () => {
    await guard.runExecute('create table local_seq (id integer primary key autoincrement, v text)');
    await guard.runExecute("insert into local_seq (v) values ('a'), ('b')");
    await guard.runExecute('delete from local_seq where id = 2');
    const r = await guard.runExecute("insert into local_seq (v) values ('c')");
    expect(r.lastInsertRowid).toBe(3);
    const seq = await guard.runQuery("select seq from sqlite_sequence where name = 'local_seq'");
    expect(seq.rows).toEqual([{ seq: 3 }]);
    // Its own counter is the agent's to set.
    await guard.runExecute("update sqlite_sequence set seq = 100 where name = 'local_seq'");
    expect((await guard.runExecute("insert into local_seq (v) values ('d')")).lastInsertRowid).toBe(101);
  });

  it("another table's counter stays untouched, also through a trigger, and the statement rolls back", async () => {
    const loopSeq = () => adf.db.prepare("select seq from sqlite_sequence where name = 'adf_loop'").pluck().get();
    adf.loop.append({ role: 'user', content: [{ type: 'text', text: 'hi' }] });
    const before = loopSeq();
    await guard.runExecute(
      'create trigger local_seq_t after insert on local_seq ' +
        "begin update sqlite_sequence set seq = 0 where name = 'adf_loop'; end",
    );
    await expect(guard.runExecute("insert into local_seq (v) values ('x')")).rejects.toHaveTrustCode(
      'SQL_WRITE_DENIED',
    );
    expect(loopSeq()).toBe(before);
    expect(adf.db.prepare("select count(*) from local_seq where v = 'x'").pluck().get()).toBe(0);
  });
});
