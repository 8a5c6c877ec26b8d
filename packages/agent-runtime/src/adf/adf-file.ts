import Database from 'better-sqlite3';
import { checkOptions } from '../options/strict-options.js';
import { createAdfOptionsSchema } from './adf-options.js';
import { closeSync, fchmodSync, fstatSync, openSync, unlinkSync } from 'node:fs';
import { TrustError } from '@trust/core';
import { createAdfAuditSink, type AdfAuditSink } from '../audit/adf-audit-sink.js';
import type { AgentConfig } from '../config/agent-config-schema.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { createAdfEventHub, type AdfEvents } from './adf-events.js';
import { createAdfFiles, type AdfFiles } from './adf-files.js';
import { createAdfMeta, type AdfMeta } from './adf-meta.js';
import {
  createAdfLogs,
  createAdfLoop,
  createAdfMail,
  createAdfTimers,
  type AdfLogs,
  type AdfLoop,
  type AdfMail,
  type AdfTimers,
} from './adf-records.js';
import { createAdfTasks, type AdfTasks } from './adf-tasks.js';
import { assertSameFile, checkSqliteHeader, type FileIdentity } from './file-header.js';
import { checkAdfIntegrity } from './integrity-check.js';
import { CREATE_SQLITE_SEQUENCE } from './schema-reference.js';
import { parseConfigValue, parseStoredConfig } from './stored-config.js';
import { auditAdfSchema } from './schema-audit.js';
import { ADF_FORMAT, ADF_MIGRATIONS, ADF_SCHEMA_VERSION, schemaStatements } from './schema.js';
import { arbitrateWrites, type AdfWriters } from './write-arbiter.js';

/** An open `.adf` agent file. Not shared between processes except through SQLite's own locking. */
export interface AdfFile {
  readonly path: string;
  /**
   * The read-write better-sqlite3 connection. Internal: agent-facing SQL goes through the SQL
   * guard. Its writes wait at most a short grace for the write lock, then preempt an agent SQL
   * statement holding it, or fail with `ADF_BUSY` (see write-arbiter.ts).
   */
  readonly db: Database.Database;
  /** Agent SQL processes writing this file register here, so host writes can preempt them. */
  readonly writers: AdfWriters;
  readonly readonly: boolean;
  readonly schemaVersion: number;
  /** The validated, frozen config. */
  config(): AgentConfig;
  /** Stores a config (re-validated) and bumps `updated_at`. */
  setConfig(config: AgentConfig | unknown): AgentConfig;
  readonly files: AdfFiles;
  readonly tasks: AdfTasks;
  readonly loop: AdfLoop;
  readonly inbox: AdfMail;
  readonly outbox: AdfMail;
  readonly timers: AdfTimers;
  readonly logs: AdfLogs;
  readonly meta: AdfMeta;
  /** Hash-chained audit sink over `adf_audit`. */
  readonly audit: AdfAuditSink;
  /** Changes made through this handle (files, mail, tasks, logs, timers), for triggers and the timer clock. */
  readonly events: AdfEvents;
  /** Runs `fn` in one IMMEDIATE transaction. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export interface CreateAdfOptions {
  /** Starting config; defaults to {@link defaultAgentConfig}. Validated. */
  readonly template?: unknown;
  /** Schema version to create; only tests use an older one to exercise migrations. */
  readonly schemaVersion?: number;
  readonly clock?: () => Date;
}

export interface OpenAdfOptions {
  /**
   * `owned`: a file this runtime created. `foreign` (the default): a file from elsewhere, which
   * additionally gets a full integrity check. Both get the schema audit.
   */
  readonly trust?: 'owned' | 'foreign';
  /**
   * For `trust: 'foreign'`: reviews the owner accepted. When given, a file whose review key
   * (content hash + verified owner signature, never a self-declared id) is not accepted is refused
   * with `ADF_REVIEW_REQUIRED`, unless opened `readonly` for reviewing. The gate runs before
   * anything is written (no migration, no reconciliation, no journal-mode change).
   */
  readonly reviews?: { isAccepted(key: { contentHash: string; ownerDid: string | null }): boolean };
  /**
   * The DID of the owner opening the file. With it, a foreign file opened writable must carry this
   * owner's valid signature over its current content hash (or be in `reviews`), else
   * `ADF_REVIEW_REQUIRED`. Undefined: only `reviews` decides (no gate when both are absent).
   */
  readonly ownerDid?: string;
  /** Time budget of a foreign file's full integrity check (default 10 s); past it: `ADF_TOO_COSTLY`. */
  readonly integrityBudgetMs?: number;
  /** Computes the review key; injected to keep the file layer free of crypto (see reviewKeyOf). */
  readonly reviewKeyOf?: (adf: AdfFile) => { contentHash: string; ownerDid: string | null };
  /** Open without writing anything: no migrations, no reconciliation. */
  readonly readonly?: boolean;
  readonly clock?: () => Date;
}

const sysClock = () => new Date();

/**
 * SQLite's defences for a file that may come from anyone, set explicitly: defensive mode (no
 * writes to the schema or to shadow tables, even with `writable_schema`), `trusted_schema=OFF`
 * (schema-defined SQL may not call functions with side effects), no writable schema, cell-size
 * checks on every page read.
 */
function hardenConnection(db: Database.Database): void {
  db.unsafeMode(false);
  db.pragma('trusted_schema = OFF');
  db.pragma('writable_schema = OFF');
  db.pragma('cell_size_check = ON');
  db.pragma('foreign_keys = ON');
}

function applyPragmas(db: Database.Database, readonly: boolean): void {
  hardenConnection(db);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  if (!readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
}

/**
 * Creates a new `.adf` file. Refuses to overwrite an existing path (`ADF_EXISTS`).
 *
 * @example
 * const adf = createAdf('agent.adf', { template: { v: 1, name: 'helper' } });
 * adf.files.write('notes.md', '# hi');
 * adf.close();
 */
export function createAdf(path: string, input: CreateAdfOptions = {}): AdfFile {
  const options = checkOptions('createAdf', createAdfOptionsSchema, input);
  const config = options.template === undefined ? defaultAgentConfig() : parseConfigValue(options.template);
  const clock = options.clock ?? sysClock;
  const version = options.schemaVersion ?? ADF_SCHEMA_VERSION;
  // The file holds config, history, files and sealed keys: it is created owner-only (0600) in
  // one exclusive step (never over an existing file or through a symlink), whatever the umask.
  // SQLite gives its -wal and -shm files the mode of the database file.
  const seen = createOwnerOnlyFile(path);
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (e) {
    unlinkSync(path);
    throw e;
  }
  try {
    // SQLite reopens the path by name: it must still be the file just created (same rule as openAdf).
    assertSameFile(path, seen);
  } catch (e) {
    db.close();
    throw e;
  }
  try {
    applyPragmas(db, false);
    db.transaction(() => {
      for (const sql of schemaStatements(version)) db.exec(sql);
      const meta = db.prepare("INSERT INTO adf_meta (key, value, protection) VALUES (?, ?, 'readonly')");
      meta.run('adf_format', ADF_FORMAT);
      meta.run('adf_schema_version', String(version));
      meta.run('adf_created_at', clock().toISOString());
      db.prepare('INSERT INTO adf_config (id, config_json, updated_at) VALUES (1, ?, ?)').run(
        JSON.stringify(config),
        clock().toISOString(),
      );
      // SQLite adds sqlite_sequence at the first AUTOINCREMENT insert; create it now, so the schema
      // (which the content hash covers) does not change on the agent's first log line.
      db.exec(CREATE_SQLITE_SEQUENCE);
    }).immediate();
  } catch (e) {
    db.close();
    unlinkSync(path);
    throw e;
  }
  return assemble(path, db, { readonly: false, clock, version });
}

function createOwnerOnlyFile(path: string): FileIdentity {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new TrustError('ADF_EXISTS', `"${path}" already exists; createAdf never overwrites`, {
        hint: 'use openAdf, or pick a new path',
        cause,
      });
    }
    throw cause;
  }
  try {
    fchmodSync(fd, 0o600);
    const st = fstatSync(fd);
    return { dev: st.dev, ino: st.ino };
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens an existing `.adf` file. The raw header is checked first (`ADF_NOT_FOUND`,
 * `ADF_NOT_SQLITE`, `ADF_TRUNCATED`), then SQLite's integrity check (`ADF_CORRUPT`), the version
 * (`ADF_TOO_NEW`), the schema audit (`ADF_SCHEMA_TAMPERED`, `ADF_NOT_ADF`) and the config
 * (`ADF_CONFIG_INVALID`). Nothing is written until every check passed, so a failed open never
 * changes the file. Then older schemas migrate in one transaction, and crashed tasks reconcile.
 *
 * @example
 * const adf = openAdf('agent.adf', { trust: 'foreign' });
 */
export function openAdf(path: string, options: OpenAdfOptions = {}): AdfFile {
  const seen = checkSqliteHeader(path);
  const readonly = options.readonly === true;
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true, readonly });
  } catch (cause) {
    throw classify(cause, path);
  }
  try {
    assertSameFile(path, seen);
    hardenConnection(db);
    // Every SQLite error from here on (a planted object that fails to load, a corrupt page, an
    // unsafe function) becomes a stable ADF_* code.
    let version = auditAdfSchema(db).version;
    checkAdfIntegrity(db, path, {
      mode: options.trust === 'owned' ? 'quick' : 'full',
      ...(options.integrityBudgetMs !== undefined ? { budgetMs: options.integrityBudgetMs } : {}),
    });
    const configJson = db.prepare('SELECT config_json FROM adf_config WHERE id = 1').pluck().get() as unknown;
    if (typeof configJson !== 'string')
      throw new TrustError('ADF_CONFIG_INVALID', 'adf_config has no row', { hint: 'the owner must set a config' });
    parseStoredConfig(configJson);
    const clock = options.clock ?? sysClock;
    let adf = assemble(path, db, { readonly, clock, version });
    if (options.trust !== 'owned' && !readonly) reviewGate(adf, options);
    applyPragmas(db, readonly);
    if (!readonly && version < ADF_SCHEMA_VERSION) {
      db.transaction(() => {
        for (const m of ADF_MIGRATIONS) if (m.to > version) for (const sql of m.sql) db.exec(sql);
        db.prepare("UPDATE adf_meta SET value = ? WHERE key = 'adf_schema_version'").run(String(ADF_SCHEMA_VERSION));
      }).immediate();
      version = ADF_SCHEMA_VERSION;
      adf = assemble(path, db, { readonly, clock, version });
    }
    if (!readonly) adf.tasks.reconcile();
    return adf;
  } catch (e) {
    db.close();
    throw e instanceof TrustError ? e : classify(e, path);
  }
}

/** Refuses a foreign file its owner has not accepted (see OpenAdfOptions.reviews and ownerDid). */
function reviewGate(adf: AdfFile, options: OpenAdfOptions): void {
  if (!options.reviews && options.ownerDid === undefined) return;
  if (!options.reviewKeyOf)
    throw new TrustError('ADF_REVIEW_REQUIRED', 'a review gate needs reviewKeyOf', {
      hint: 'pass reviewKeyOf from @trust/agent-runtime',
    });
  const key = options.reviewKeyOf(adf);
  const signed = key.ownerDid !== null && key.ownerDid === options.ownerDid;
  if (signed || options.reviews?.isAccepted(key) === true) return;
  throw new TrustError(
    'ADF_REVIEW_REQUIRED',
    `this foreign file (content ${key.contentHash.slice(0, 16)}…, ` +
      `signed by ${key.ownerDid ?? 'nobody valid'}) has not been reviewed by its owner`,
    {
      hint:
        'review what it can do (`trust agent review <file>`, or open it with { readonly: true }), then accept ' +
        'the review, which signs it as yours',
    },
  );
}

function classify(cause: unknown, path: string): TrustError {
  const code = (cause as { code?: string }).code ?? '';
  if (code === 'SQLITE_NOTADB')
    return new TrustError('ADF_NOT_SQLITE', `"${path}" is not an SQLite database`, { cause });
  if (code.startsWith('SQLITE_CORRUPT') || /malformed database schema/i.test((cause as Error).message ?? ''))
    return new TrustError('ADF_CORRUPT', `"${path}" is corrupt: ${(cause as Error).message}`, {
      cause,
      hint: 'restore the file from a backup',
    });
  if (code === 'SQLITE_CANTOPEN') return new TrustError('ADF_NOT_FOUND', `cannot open "${path}"`, { cause });
  if (code === 'SQLITE_READONLY_ROLLBACK' || code === 'SQLITE_READONLY_RECOVERY')
    return new TrustError(
      'ADF_SIDE_FILE_UNSAFE',
      `"${path}" has an unfinished journal that a read-only open cannot replay`,
      {
        cause,
        hint: 'open a private copy writable (the snapshot function does), so what you read is what would run',
      },
    );
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
    return new TrustError('ADF_BUSY', `"${path}" is locked by another connection`, { cause, hint: 'try again' });
  return new TrustError('ADF_OPEN_FAILED', `cannot open "${path}": ${(cause as Error).message}`, { cause });
}

function assemble(
  path: string,
  raw: Database.Database,
  o: { readonly: boolean; clock: () => Date; version: number },
): AdfFile {
  const { db, writers } = arbitrateWrites(raw);
  const getConfig = db.prepare('SELECT config_json, updated_at FROM adf_config WHERE id = 1');
  // `data_version` changes when another connection commits; `generation` when this one writes
  // the config. Together they let config() skip the SELECT and parse on the hot path.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let generation = 0;
  let cached: { json: string; config: AgentConfig; dv: unknown; gen: number } | undefined;
  const config = (): AgentConfig => {
    const dv = dataVersion.get();
    if (cached && cached.dv === dv && cached.gen === generation) return cached.config;
    const row = getConfig.get() as { config_json: string; updated_at: string };
    const parsed = cached && cached.json === row.config_json ? cached.config : parseStoredConfig(row.config_json);
    cached = { json: row.config_json, config: parsed, dv, gen: generation };
    return parsed;
  };
  const audit = createAdfAuditSink(db, o.clock);
  const hub = createAdfEventHub();
  const emit = hub.emit;
  return {
    path,
    db,
    writers,
    readonly: o.readonly,
    schemaVersion: o.version,
    config,
    setConfig(next) {
      const parsed = parseConfigValue(next);
      generation++;
      db.prepare('UPDATE adf_config SET config_json = ?, updated_at = ? WHERE id = 1').run(
        JSON.stringify(parsed),
        o.clock().toISOString(),
      );
      return parsed;
    },
    files: createAdfFiles(db, o.clock, () => audit, emit),
    tasks: createAdfTasks(db, o.clock, emit),
    loop: createAdfLoop(db, o.clock),
    inbox: createAdfMail(db, 'adf_inbox', o.clock, emit),
    outbox: createAdfMail(db, 'adf_outbox', o.clock, emit),
    timers: createAdfTimers(db, o.clock, emit),
    logs: createAdfLogs(db, o.clock, () => config().logging.max_rows, emit),
    meta: createAdfMeta(db),
    audit,
    events: { subscribe: hub.subscribe },
    transaction: (fn) => db.transaction(fn).immediate(),
    close: () => {
      if (raw.open) raw.close();
    },
  };
}
