import type { TrustErrorCode } from '@trust/core';
import type Database from 'better-sqlite3';

/** What one compiled statement touches, read from its EXPLAIN bytecode (sub-programs included). */
export interface StatementAnalysis {
  /** First keyword, upper-case (`SELECT`, `WITH`, `INSERT`, …). */
  readonly verb: string;
  /** Tables read (index reads map to their table). `sqlite_schema` for root page 1. */
  readonly reads: ReadonlySet<string>;
  /** Tables written. */
  readonly writes: ReadonlySet<string>;
  /** Tables whose existing rows the statement may change or remove (UPDATE, DELETE, REPLACE, DROP). */
  readonly mutates: ReadonlySet<string>;
  /** True when the statement creates, drops or alters schema objects. */
  readonly ddl: boolean;
  /** Reasons that deny outright (virtual tables, other databases, forbidden functions, opcodes). */
  readonly hard: readonly { code: TrustErrorCode; reason: string }[];
}

/** A root page → table map for the `main` schema. */
export type RootMap = ReadonlyMap<number, string>;

export function buildRootMap(db: Database.Database): RootMap {
  const map = new Map<number, string>([[1, 'sqlite_schema']]);
  for (const r of db.prepare('SELECT tbl_name, rootpage FROM main.sqlite_schema WHERE rootpage > 0').all() as Array<{
    tbl_name: string;
    rootpage: number;
  }>) {
    map.set(r.rootpage, r.tbl_name.toLowerCase());
  }
  return map;
}

/**
 * The first keyword, skipping whitespace and comments. SQLite never accepts a quoted keyword, so
 * this cannot be fooled by identifiers or literals.
 */
export function leadingVerb(sql: string): string {
  let i = 0;
  for (;;) {
    while (i < sql.length && /\s/.test(sql[i] as string)) i++;
    if (sql.startsWith('--', i)) {
      const n = sql.indexOf('\n', i);
      i = n < 0 ? sql.length : n + 1;
      continue;
    }
    if (sql.startsWith('/*', i)) {
      const n = sql.indexOf('*/', i + 2);
      i = n < 0 ? sql.length : n + 2;
      continue;
    }
    break;
  }
  return (/^[A-Za-z]+/.exec(sql.slice(i))?.[0] ?? '').toUpperCase();
}

const DENIED_FUNCTIONS = new Set([
  'load_extension',
  'sqlite_attach',
  'sqlite_detach',
  'fts3_tokenizer',
  'readfile',
  'writefile',
  'edit',
  'sqlite_dbpage',
  'zipfile',
]);
const DENIED_OPCODES = new Map<string, string>([
  ['Vacuum', 'VACUUM'],
  ['Checkpoint', 'checkpoints'],
  ['IntegrityCk', 'integrity checks'],
  ['Pagecount', 'page counts'],
  ['MaxPgcnt', 'page limits'],
  ['AutoCommit', 'transaction control'],
  ['Savepoint', 'savepoints'],
  ['LoadAnalysis', 'ANALYZE'],
  ['SqlExec', 'nested SQL execution'],
]);
/**
 * The table-valued functions agent SQL may use: JSON over a value (whose source the rest of the
 * program is judged on like any other read). Anything else virtual stays refused.
 */
export const ALLOWED_TABLE_FUNCTIONS: readonly string[] = Object.freeze(['json_each', 'json_tree']);
// Cursor opcodes of a virtual table that was opened by an allowed VOpen (they touch nothing else).
const VIRTUAL_CURSOR_OPCODES = new Set(['VFilter', 'VColumn', 'VNext', 'VRowid', 'VInitIn']);
const VIRTUAL_OPCODES = new Set(['VOpen', 'VCreate', 'VDestroy', 'VFilter', 'VUpdate', 'VBegin', 'VRename', 'VCheck']);
const OPFLAG_ISUPDATE = 0x04;
const OPFLAG_P2ISREG = 0x10;

/**
 * The instances of the allowed table-valued functions on `db`, as EXPLAIN prints them in VOpen's
 * P4 (`vtab:<address>`). An eponymous virtual table is one object per connection for the
 * connection's life, so an identical P4 is that very table; any other virtual table (pragma_*,
 * dbstat, a module of the file) has another address and stays refused.
 */
function tableFunctionIds(db: Database.Database): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const name of ALLOWED_TABLE_FUNCTIONS) {
    const ops = db.prepare(`EXPLAIN SELECT * FROM ${name}('[]')`).all() as Op[];
    for (const op of ops) if (op.opcode === 'VOpen') ids.add(String(op.p4));
  }
  return ids;
}

interface Op {
  addr: number;
  opcode: string;
  p1: number;
  p2: number;
  p3: number;
  p4: unknown;
  p5: number;
}

/** Compiles `EXPLAIN <sql>` (never runs `sql`) and reduces its bytecode to tables and operations. */
export function analyzeStatement(
  db: Database.Database,
  sql: string,
  roots: RootMap,
  params: unknown[] = [],
): StatementAnalysis {
  const ops = db.prepare(`EXPLAIN ${sql}`).all(...(params as never[])) as Op[];
  const reads = new Set<string>();
  const writes = new Set<string>();
  const mutates = new Set<string>();
  const hard: { code: TrustErrorCode; reason: string }[] = [];
  let ddl = false;
  const verb = leadingVerb(sql);
  let cursors = new Map<number, { table: string; write: boolean }>();
  // Recursive CTEs are allowed: agent SQL runs in a separate process whose wall-clock cap is
  // enforced by killing it (sql-host.ts), so an unbounded recursion ends at the time cap.
  const tableOf = (root: number) => roots.get(root) ?? `#root${root}`;
  let functionIds: ReadonlySet<string> | undefined;
  const vtabDenied = () =>
    hard.push({
      code: 'SQL_VIRTUAL_TABLE',
      reason:
        `virtual tables and table-valued functions other than ${ALLOWED_TABLE_FUNCTIONS.join(', ')} ` +
        '(including pragma_*) are not allowed',
    });
  ops.forEach((op, i) => {
    if (op.addr === 0) cursors = new Map(); // a sub-program starts: new cursor space
    switch (op.opcode) {
      case 'OpenRead':
      case 'OpenWrite':
      case 'ReopenIdx': {
        const write = op.opcode === 'OpenWrite';
        // ALTER TABLE consults the (empty: agents cannot create temp objects) temp schema for triggers.
        if (op.p3 === 1 && op.p2 === 1 && verb === 'ALTER') return;
        if (op.p3 !== 0) {
          hard.push({ code: 'SQL_OTHER_DATABASE', reason: 'the statement touches the temp or an attached database' });
          return;
        }
        if (op.p5 & OPFLAG_P2ISREG) {
          ddl = true;
          cursors.set(op.p1, { table: '#new', write });
          return;
        }
        const table = tableOf(op.p2);
        cursors.set(op.p1, { table, write });
        (write ? writes : reads).add(table);
        if (write && table === 'sqlite_schema') ddl = true;
        return;
      }
      case 'OpenDup': {
        const c = cursors.get(op.p2);
        if (c) cursors.set(op.p1, c);
        return;
      }
      case 'Delete':
      case 'IdxDelete': {
        const c = cursors.get(op.p1);
        if (c) {
          mutates.add(c.table);
          writes.add(c.table);
        }
        return;
      }
      case 'Insert': {
        const c = cursors.get(op.p1);
        if (c && op.p5 & OPFLAG_ISUPDATE) mutates.add(c.table);
        return;
      }
      case 'NotExists': {
        // On a write cursor, a rowid conflict that is not a constraint error means REPLACE: an overwrite.
        const c = cursors.get(op.p1);
        const next = ops[i + 1];
        if (c?.write && !(next?.opcode === 'Halt' && next.p1 !== 0)) mutates.add(c.table);
        return;
      }
      case 'Clear':
      case 'Destroy': {
        const db3 = op.opcode === 'Clear' ? op.p2 : op.p3;
        if (db3 !== 0) {
          hard.push({ code: 'SQL_OTHER_DATABASE', reason: 'the statement touches the temp or an attached database' });
          return;
        }
        const table = tableOf(op.p1);
        writes.add(table);
        mutates.add(table);
        if (op.opcode === 'Destroy') ddl = true;
        return;
      }
      case 'JournalMode':
        // `IF [NOT] EXISTS` DDL that finds nothing to do still marks the statement as a writer
        // (sqlite3ForceNotReadOnly) with a read-only journal-mode *query* (P3 = -1) on main. Only
        // a real change (P3 >= 0, reachable through PRAGMA, which the verb rule refuses) is denied.
        if (op.p3 !== -1 || op.p1 !== 0)
          hard.push({ code: 'SQL_OPERATION_DENIED', reason: 'journal mode changes are not allowed' });
        return;
      case 'ParseSchema':
      case 'DropTable':
      case 'DropIndex':
      case 'DropTrigger':
      case 'RenameTable':
        ddl = true;
        return;
      case 'Function':
      case 'PureFunc':
      case 'AggStep':
      case 'AggFinal':
      case 'AggValue':
      case 'AggInverse': {
        const name = String(op.p4 ?? '')
          .replace(/\(.*$/, '')
          .toLowerCase();
        // trust_* are the host's own functions (the interrupt library's, on a host-only
        // connection): never on an agent connection, and refused should one ever be visible.
        if (DENIED_FUNCTIONS.has(name) || name.startsWith('trust_'))
          hard.push({ code: 'SQL_FUNCTION_DENIED', reason: `function ${name}() is not allowed` });
        return;
      }
      case 'VOpen':
        // Probed after the statement compiled (its program holds the table), on the same connection.
        functionIds ??= tableFunctionIds(db);
        if (!functionIds.has(String(op.p4))) vtabDenied();
        return;
      default:
        if (VIRTUAL_CURSOR_OPCODES.has(op.opcode)) return;
        if (VIRTUAL_OPCODES.has(op.opcode)) vtabDenied();
        else if (DENIED_OPCODES.has(op.opcode))
          hard.push({ code: 'SQL_OPERATION_DENIED', reason: `${DENIED_OPCODES.get(op.opcode)} is not allowed` });
    }
  });
  return { verb, reads, writes, mutates, ddl, hard };
}
