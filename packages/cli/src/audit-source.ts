import { resolve } from 'node:path';
import type { AuditEvent } from '@trust/core';
import { withAdfSnapshot } from './adf-snapshot.js';

/** Where audit events come from: a JSONL audit file or an agent's `.adf` file. */
export type AuditFormat = 'jsonl' | 'adf';

/** The format of an audit file, from its name. */
export function auditFormatOf(path: string): AuditFormat {
  return path.toLowerCase().endsWith('.adf') ? 'adf' : 'jsonl';
}

/**
 * Reads every audit event of a file. JSONL files are read with `@trust/core/node` (a line that is
 * not an audit event throws `AUDIT_FILE_CORRUPT` with the line named; with `allowTornTail`, an
 * incomplete last line is skipped and the events before it are returned); `.adf` files are opened
 * read-only with `@trust/agent-runtime` and their `adf_audit` table is read.
 */
export async function readAuditEvents(
  cwd: string,
  path: string,
  options: { readonly allowTornTail?: boolean } = {},
): Promise<{ full: string; format: AuditFormat; events: AuditEvent[] }> {
  const full = resolve(cwd, path);
  const format = auditFormatOf(full);
  if (format === 'adf') {
    const { openAdf } = await import('@trust/agent-runtime');
    // A read-only copy, as a foreign file: reading an audit log must not change the file or
    // leave SQLite's -shm/-wal files beside it.
    return withAdfSnapshot(full, (copy) => {
      const adf = openAdf(copy, { trust: 'foreign', readonly: true });
      try {
        return { full, format, events: adf.audit.list() };
      } finally {
        adf.close();
      }
    });
  }
  const { readJsonlAudit } = await import('@trust/core/node');
  return { full, format, events: readJsonlAudit(full, options) };
}
