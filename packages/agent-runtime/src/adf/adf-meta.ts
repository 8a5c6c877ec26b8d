import type Database from 'better-sqlite3';
import { deniedError, deny } from '@trust/core';

export type MetaProtection = 'none' | 'readonly' | 'increment';

/** Meta keys the runtime owns. They are readonly to everything but the runtime itself. */
export const RUNTIME_META_KEYS: readonly string[] = Object.freeze([
  'adf_format',
  'adf_schema_version',
  'adf_did',
  'adf_owner_did',
  'adf_runtime_did',
  'adf_owner_sig',
  'adf_created_at',
]);

/** The `adf_meta` key-value store. */
export interface AdfMeta {
  get(key: string): string | undefined;
  list(): Array<{ key: string; value: string; protection: MetaProtection }>;
  /**
   * Sets a value. `readonly` refuses; `increment` accepts only a larger integer. Runtime keys always refuse unless
   * `runtime`.
   */
  set(
    key: string,
    value: string,
    options?: { bypassProtection?: boolean; protection?: MetaProtection; runtime?: boolean },
  ): void;
  delete(key: string, options?: { bypassProtection?: boolean }): boolean;
}

/** Builds the meta API. */
export function createAdfMeta(db: Database.Database): AdfMeta {
  const get = db.prepare('SELECT value, protection FROM adf_meta WHERE key = ?');
  const refuse = (key: string, why: string) =>
    deniedError(deny('ADF_META_PROTECTED', `meta key "${key}" ${why}`, { rule: 'meta-protection' }));
  return {
    get: (key) => (get.get(key) as { value: string } | undefined)?.value,
    list: () =>
      db.prepare('SELECT key, value, protection FROM adf_meta ORDER BY key').all() as Array<{
        key: string;
        value: string;
        protection: MetaProtection;
      }>,
    set(key, value, o = {}) {
      if (RUNTIME_META_KEYS.includes(key) && o.runtime !== true) throw refuse(key, 'is owned by the runtime');
      const cur = get.get(key) as { value: string; protection: MetaProtection } | undefined;
      if (cur && o.bypassProtection !== true && o.runtime !== true) {
        if (cur.protection === 'readonly') throw refuse(key, 'is readonly');
        if (cur.protection === 'increment' && !(/^-?\d+$/.test(value) && BigInt(value) > BigInt(cur.value)))
          throw refuse(key, 'only accepts a larger integer');
      }
      const protection = o.protection ?? cur?.protection ?? 'none';
      db.prepare(
        'INSERT INTO adf_meta (key, value, protection) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value ' +
          '= excluded.value, protection = excluded.protection',
      ).run(key, String(value), protection);
    },
    delete(key, o = {}) {
      const cur = get.get(key) as { protection: MetaProtection } | undefined;
      if (!cur) return false;
      if (RUNTIME_META_KEYS.includes(key)) throw refuse(key, 'is owned by the runtime');
      if (cur.protection !== 'none' && o.bypassProtection !== true) throw refuse(key, `is ${cur.protection}`);
      return db.prepare('DELETE FROM adf_meta WHERE key = ?').run(key).changes === 1;
    },
  };
}
