import { resolve } from 'node:path';
import type { AuditEvent } from '@trust/core';
import { CliError } from './cli-error.js';

/** Where audit events come from: a JSONL audit file or an agent's `.adf` file. */
export type AuditFormat = 'jsonl' | 'adf';

/** The format of an audit file, from its name. */
export function auditFormatOf(path: string): AuditFormat {
  return path.toLowerCase().endsWith('.adf') ? 'adf' : 'jsonl';
}

/**
 * Reads every audit event of a file. JSONL files are read with `@trust/core/node`; a line that is
 * not an audit event throws `AUDIT_FILE_CORRUPT` with the line named.
 */
export async function readAuditEvents(cwd: string, path: string): Promise<{ full: string; format: AuditFormat; events: AuditEvent[] }> {
  const full = resolve(cwd, path);
  const format = auditFormatOf(full);
  if (format === 'adf') {
    throw new CliError('NOT_IMPLEMENTED', `reading the audit log of an .adf file (${full}) is not available yet`, {
      hint: '@trust/agent-runtime does not expose the .adf audit reader yet; JSONL audit files work',
    });
  }
  const { readJsonlAudit } = await import('@trust/core/node');
  return { full, format, events: readJsonlAudit(full) };
}
