/**
 * The `.adf` schema: one SQLite file per agent. The DDL below is the only source of truth; the
 * schema audit compares a file's `sqlite_schema` against it, so any column, CHECK or default that
 * a foreign file changed shows up as tampering.
 */

/** The schema version this runtime writes. A file with a higher version is refused (`ADF_TOO_NEW`). */
export const ADF_SCHEMA_VERSION = 2;

/** The format name stored in `adf_meta.adf_format`. */
export const ADF_FORMAT = 'trust-adf';

/** One step of the migration ladder: from `to - 1` to `to`. */
export interface AdfMigration {
  readonly to: number;
  readonly sql: readonly string[];
}

/** Table DDL for the current version, keyed by table name. */
export const ADF_TABLES: Readonly<Record<string, string>> = Object.freeze({
  adf_meta:
    `CREATE TABLE adf_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, protection TEXT NOT NULL ` +
    `DEFAULT 'none' CHECK (protection IN ('none','readonly','increment')))`,
  adf_config:
    `CREATE TABLE adf_config (id INTEGER PRIMARY KEY CHECK (id = 1), config_json TEXT NOT NULL, updated_at ` +
    `TEXT NOT NULL)`,
  adf_identity:
    `CREATE TABLE adf_identity (purpose TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL, encryption_algo TEXT ` +
    `NOT NULL DEFAULT 'plain', salt BLOB, kdf_params TEXT, code_access INTEGER NOT NULL DEFAULT 0 CHECK ` +
    `(code_access IN (0,1)))`,
  adf_loop:
    `CREATE TABLE adf_loop (seq INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, content_json TEXT NOT ` +
    `NULL, model TEXT, tokens INTEGER, created_at TEXT NOT NULL)`,
  adf_inbox:
    `CREATE TABLE adf_inbox (id TEXT PRIMARY KEY NOT NULL, message_id TEXT, "from" TEXT, "to" TEXT, thread_id ` +
    `TEXT, parent_id TEXT, subject TEXT, content TEXT NOT NULL, content_type TEXT, meta TEXT NOT NULL DEFAULT ` +
    `'{}', source TEXT NOT NULL DEFAULT 'mesh', sent_at TEXT, received_at TEXT NOT NULL, status TEXT NOT NULL ` +
    `DEFAULT 'unread' CHECK (status IN ('unread','read','archived')), original_message TEXT)`,
  adf_outbox:
    `CREATE TABLE adf_outbox (id TEXT PRIMARY KEY NOT NULL, message_id TEXT, "from" TEXT, "to" TEXT, address ` +
    `TEXT, thread_id TEXT, parent_id TEXT, subject TEXT, content TEXT NOT NULL, content_type TEXT, meta TEXT ` +
    `NOT NULL DEFAULT '{}', status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ` +
    `('pending','sent','delivered','failed')), status_code INTEGER, created_at TEXT NOT NULL, delivered_at ` +
    `TEXT, original_message TEXT)`,
  adf_files:
    `CREATE TABLE adf_files (path TEXT PRIMARY KEY NOT NULL, content BLOB NOT NULL, mime_type TEXT, size ` +
    `INTEGER NOT NULL, protection TEXT NOT NULL DEFAULT 'none' CHECK (protection IN ` +
    `('none','read_only','no_delete')), authorized INTEGER NOT NULL DEFAULT 0 CHECK (authorized IN (0,1)), ` +
    `created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
  adf_timers:
    `CREATE TABLE adf_timers (id INTEGER PRIMARY KEY AUTOINCREMENT, schedule_json TEXT NOT NULL, next_wake_at ` +
    `TEXT, payload TEXT, scope TEXT NOT NULL DEFAULT '["system"]', lambda TEXT, run_count INTEGER NOT NULL ` +
    `DEFAULT 0, created_at TEXT NOT NULL, last_fired_at TEXT, locked INTEGER NOT NULL DEFAULT 0 CHECK (locked ` +
    `IN (0,1)), expired INTEGER NOT NULL DEFAULT 0 CHECK (expired IN (0,1)))`,
  adf_tasks:
    `CREATE TABLE adf_tasks (id TEXT PRIMARY KEY NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL, status TEXT ` +
    `NOT NULL CHECK (status IN ` +
    `('pending','pending_approval','running','completed','failed','denied','cancelled')), result TEXT, error ` +
    `TEXT, created_at TEXT NOT NULL, completed_at TEXT, origin TEXT NOT NULL, requires_authorization INTEGER ` +
    `NOT NULL DEFAULT 0 CHECK (requires_authorization IN (0,1)), executor_managed INTEGER NOT NULL DEFAULT 0 ` +
    `CHECK (executor_managed IN (0,1)), approval_meta TEXT)`,
  adf_logs:
    `CREATE TABLE adf_logs (id INTEGER PRIMARY KEY AUTOINCREMENT, level TEXT NOT NULL, origin TEXT, event ` +
    `TEXT, target TEXT, message TEXT NOT NULL, data TEXT, created_at TEXT NOT NULL)`,
  adf_audit:
    `CREATE TABLE adf_audit (id INTEGER PRIMARY KEY AUTOINCREMENT, event_json TEXT NOT NULL, hash TEXT NOT ` +
    `NULL UNIQUE, prev TEXT NOT NULL)`,
});

/** Index DDL for the current version, keyed by index name. */
export const ADF_INDEXES: Readonly<Record<string, string>> = Object.freeze({
  adf_inbox_status: `CREATE INDEX adf_inbox_status ON adf_inbox (status, received_at)`,
  adf_tasks_status: `CREATE INDEX adf_tasks_status ON adf_tasks (status)`,
});

/**
 * The migration ladder. Version 1 had no `adf_inbox_status` index and a looser tasks table; the
 * ladder exists so a file written by an older runtime is upgraded in one transaction.
 */
export const ADF_MIGRATIONS: readonly AdfMigration[] = Object.freeze([
  { to: 2, sql: [ADF_INDEXES['adf_inbox_status'] as string] },
]);

/** The tables `db_query` may read (besides `local_*`). */
export const ADF_READABLE_TABLES: readonly string[] = Object.freeze([
  'adf_loop',
  'adf_inbox',
  'adf_outbox',
  'adf_files',
  'adf_timers',
  'adf_audit',
  'adf_logs',
  'adf_tasks',
]);

/** Tables nothing agent-facing may read or write. */
export const ADF_SECRET_TABLES: readonly string[] = Object.freeze(['adf_meta', 'adf_config', 'adf_identity']);

/** Full DDL for a fresh file at `version` (1 or the current one). */
export function schemaStatements(version: number): string[] {
  const tables = Object.values(ADF_TABLES);
  if (version >= 2) return [...tables, ...Object.values(ADF_INDEXES)];
  return [...tables, ADF_INDEXES['adf_tasks_status'] as string];
}

/** Collapses whitespace so stored DDL compares equal to ours regardless of formatting. */
export function normalizeDdl(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim();
}
