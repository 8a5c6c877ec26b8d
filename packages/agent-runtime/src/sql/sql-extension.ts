import type Database from 'better-sqlite3';

/**
 * Entry points of the interrupt library (`native/sql-interrupt.c`): agent connections (worker),
 * the host's interrupter connection, the host's fast-lane connection (sql-fast-lane.ts).
 */
export const AGENT_ENTRY = 'sqlite3_trustagent_init';
export const HOST_ENTRY = 'sqlite3_trusthost_init';
export const LANE_ENTRY = 'sqlite3_trustlane_init';

/** better-sqlite3 takes the entry point as a second argument; its type declarations omit it. */
export function loadEntry(db: Database.Database, lib: string, entry: string): void {
  (db.loadExtension as (this: Database.Database, file: string, entryPoint: string) => unknown).call(db, lib, entry);
}
