import type { QueryCaps } from './sql-engine.js';
import type { WireQueryResult } from './sql-host-protocol.js';
import { needsStructuredClone } from './sql-wire.js';

/** Rough size of one value as it crosses to the host: bytes for blobs and text, 8 for numbers. */
function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length * 2;
  if (v instanceof Uint8Array) return v.byteLength;
  return 8;
}

/**
 * Reads rows (arrays in `columns` order) from a running statement while they are produced, under
 * the row and byte caps: it stops before the row that would cross a cap, so what the host receives
 * stays under it, and always ends the statement. `binary`: a value JSON cannot carry exactly (sql-wire.ts).
 */
export function collectRows(
  it: IterableIterator<unknown[]>,
  columns: readonly string[],
  caps: QueryCaps,
): { result: WireQueryResult; binary: boolean } {
  const rows: unknown[][] = [];
  let bytes = 0;
  let binary = false;
  let truncatedBy: 'rows' | 'bytes' | undefined;
  try {
    for (const row of it) {
      if (rows.length >= caps.maxRows) {
        truncatedBy = 'rows';
        break;
      }
      let size = 0;
      for (let i = 0; i < row.length; i++) {
        const x = row[i];
        size += sizeOf(x) + columns[i]!.length;
        if (!binary && typeof x !== 'string' && x !== null) binary = needsStructuredClone(x);
      }
      if (bytes + size > caps.maxBytes) {
        truncatedBy = 'bytes';
        break;
      }
      bytes += size;
      rows.push(row);
    }
  } finally {
    it.return?.();
  }
  const cols = [...columns];
  return {
    result: truncatedBy
      ? { columns: cols, rows, truncated: true, truncatedBy }
      : { columns: cols, rows, truncated: false },
    binary,
  };
}
