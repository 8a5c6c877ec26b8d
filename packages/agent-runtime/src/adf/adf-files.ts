import type Database from 'better-sqlite3';
import type { AdfEvent } from './adf-events.js';
import { TrustError, createPrincipal, deniedError, deny, type AuditSink } from '@trust/core';

/** Protection level of a virtual file. */
export type FileProtection = 'none' | 'read_only' | 'no_delete';
/** Who sets a privileged flag. Only these two may. */
export type FlagSetter = 'owner' | 'authorized-code';

/** One virtual file. */
export interface AdfFileRecord {
  readonly path: string;
  readonly content: Buffer;
  readonly mimeType: string | null;
  readonly size: number;
  readonly protection: FileProtection;
  readonly authorized: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The virtual file store in `adf_files`. */
export interface AdfFiles {
  read(path: string): AdfFileRecord | undefined;
  /** Writes content. Any content write clears `authorized`. `read_only` refuses unless `bypassProtection`. */
  write(
    path: string,
    content: string | Uint8Array,
    options?: { mimeType?: string; bypassProtection?: boolean },
  ): AdfFileRecord;
  list(prefix?: string): Array<Omit<AdfFileRecord, 'content'>>;
  /** Deletes a file; `read_only` and `no_delete` refuse unless `bypassProtection`. Returns false when absent. */
  delete(path: string, options?: { bypassProtection?: boolean }): boolean;
  /** Sets or clears the authorized flag. Only the owner or authorized code may. */
  setAuthorized(path: string, authorized: boolean, by: FlagSetter): void;
  isAuthorized(path: string): boolean;
  /** Sets the protection level. Only the owner or authorized code may. */
  setProtection(path: string, protection: FileProtection, by: FlagSetter): void;
}

interface Row {
  path: string;
  content: Buffer;
  mime_type: string | null;
  size: number;
  protection: FileProtection;
  authorized: number;
  created_at: string;
  updated_at: string;
}

/** Canonical VFS path: no leading slash, no `.`/`..`/empty segments, no NUL. */
export function normalizeVfsPath(path: string): string {
  const p = String(path).replace(/^\/+/, '');
  const segs = p.split('/');
  if (p === '' || p.includes('\0') || segs.some((s) => s === '' || s === '.' || s === '..')) {
    throw new TrustError('ADF_FILE_PATH_INVALID', `virtual file path "${path}" is not valid`, {
      hint: 'use a relative path like "notes/todo.md"',
    });
  }
  return p;
}

const toRecord = (r: Row): AdfFileRecord =>
  Object.freeze({
    path: r.path,
    content: r.content,
    mimeType: r.mime_type,
    size: r.size,
    protection: r.protection,
    authorized: r.authorized === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });

function assertSetter(by: string, what: string): void {
  if (by !== 'owner' && by !== 'authorized-code') {
    throw deniedError(
      deny('REQUIRES_AUTHORIZED_CODE', `${what} can be set only by the owner or authorized code, not by ${by}`, {
        rule: 'authorized-flag',
      }),
    );
  }
}

/** Builds the file store over an open database. */
export function createAdfFiles(
  db: Database.Database,
  clock: () => Date,
  audit?: () => AuditSink,
  emit: (e: AdfEvent) => void = () => undefined,
): AdfFiles {
  // Flag changes are decisions about authority: each one is an audit event.
  const record = (by: FlagSetter, action: string, target: string, value: string) =>
    audit?.().record({
      principal: createPrincipal(by, by),
      action,
      target,
      decision: 'allow',
      rule: 'owner-or-authorized-code',
      details: { value },
    });
  const get = db.prepare('SELECT * FROM adf_files WHERE path = ?');
  const insert = db.prepare(
    'INSERT INTO adf_files (path, content, mime_type, size, protection, authorized, created_at, updated_at) ' +
      "VALUES (?, ?, ?, ?, 'none', 0, ?, ?)",
  );
  // The content UPDATE itself clears `authorized`: no code path can write content and keep the flag.
  const update = db.prepare(
    'UPDATE adf_files SET content = ?, mime_type = COALESCE(?, mime_type), size = ?, authorized = 0, ' +
      'updated_at = ? WHERE path = ?',
  );
  const read = (path: string) => {
    const r = get.get(normalizeVfsPath(path)) as Row | undefined;
    return r && toRecord(r);
  };
  const write = db.transaction(
    (path: string, content: string | Uint8Array, options: { mimeType?: string; bypassProtection?: boolean }) => {
      const p = normalizeVfsPath(path);
      const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
      const now = clock().toISOString();
      const existing = get.get(p) as Row | undefined;
      if (existing === undefined) insert.run(p, buf, options.mimeType ?? null, buf.length, now, now);
      else {
        if (existing.protection === 'read_only' && options.bypassProtection !== true) {
          throw deniedError(
            deny('ADF_FILE_PROTECTED', `"${p}" is read_only`, {
              rule: 'file-protection',
              hint: 'the owner can approve a one-time override',
            }),
          );
        }
        update.run(buf, options.mimeType ?? null, buf.length, now, p);
      }
      return toRecord(get.get(p) as Row);
    },
  );
  return {
    read,
    write(path, content, options = {}) {
      const rec = write.immediate(path, content, options);
      emit({ kind: 'file', path: rec.path, change: 'write' });
      return rec;
    },
    list(prefix = '') {
      const rows = db
        .prepare(
          'SELECT path, mime_type, size, protection, authorized, created_at, updated_at FROM adf_files WHERE ' +
            'substr(path, 1, ?) = ? ORDER BY path',
        )
        .all(prefix.length, prefix) as Row[];
      return rows.map((r) => {
        const { content: _c, ...rest } = toRecord({ ...r, content: Buffer.alloc(0) });
        return rest;
      });
    },
    delete(path, options = {}) {
      const p = normalizeVfsPath(path);
      const existing = get.get(p) as Row | undefined;
      if (existing === undefined) return false;
      if (existing.protection !== 'none' && options.bypassProtection !== true) {
        throw deniedError(
          deny('ADF_FILE_PROTECTED', `"${p}" is ${existing.protection} and cannot be deleted`, {
            rule: 'file-protection',
            hint: 'the owner can approve a one-time override',
          }),
        );
      }
      db.prepare('DELETE FROM adf_files WHERE path = ?').run(p);
      emit({ kind: 'file', path: p, change: 'delete' });
      return true;
    },
    setAuthorized(path, authorized, by) {
      assertSetter(by, 'the authorized flag');
      const r = db
        .prepare('UPDATE adf_files SET authorized = ? WHERE path = ?')
        .run(authorized ? 1 : 0, normalizeVfsPath(path));
      if (r.changes === 0) throw new TrustError('ADF_FILE_NOT_FOUND', `no virtual file "${path}"`);
      record(by, 'file.authorize', normalizeVfsPath(path), String(authorized));
    },
    isAuthorized: (path) => read(path)?.authorized === true,
    setProtection(path, protection, by) {
      assertSetter(by, 'file protection');
      const r = db
        .prepare('UPDATE adf_files SET protection = ? WHERE path = ?')
        .run(protection, normalizeVfsPath(path));
      if (r.changes === 0) throw new TrustError('ADF_FILE_NOT_FOUND', `no virtual file "${path}"`);
      record(by, 'file.protect', normalizeVfsPath(path), protection);
    },
  };
}
