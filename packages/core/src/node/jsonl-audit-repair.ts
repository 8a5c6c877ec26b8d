import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync } from 'node:fs';
import { verifyChain } from '../audit-chain.js';
import { TrustError } from '../error.js';
import { parseAuditText, readAuditBytes } from './jsonl-audit-read.js';

/** What `repairJsonlAudit` removed (or, with `dryRun`, would remove). */
export interface JsonlAuditRepair {
  /** Whether the file had a torn tail. `false`: nothing was (or would be) removed. */
  readonly torn: boolean;
  /** The 1-based line number of the torn tail (when `torn`). */
  readonly line?: number;
  /** Bytes removed from the end of the file (0 when not torn). */
  readonly removedBytes: number;
  /** The removed bytes as UTF-8 text (invalid sequences replaced), for the operator to see. */
  readonly removed: string;
  /** The size of the file after the repair: the end of its last complete line. */
  readonly keptBytes: number;
  /** Complete events kept (all verified). */
  readonly count: number;
  /** Whether the file was changed (false for a dry run or a file without a torn tail). */
  readonly changed: boolean;
}

/**
 * Removes the torn tail of a JSONL audit file, and nothing else: the bytes after its last
 * newline, left by a crash or a full disk in the middle of a write (the sink never
 * acknowledged that event). Refused with `AUDIT_REPAIR_REFUSED`, changing nothing, when any
 * complete line is not an event or the chain before the tail does not verify: that is not a
 * crash, and the file is evidence. The truncation is fsynced. `dryRun` reports without writing.
 *
 * @example
 * const r = repairJsonlAudit('/var/log/trust/audit.jsonl');
 * if (r.torn) console.log(`removed ${r.removedBytes} bytes of line ${r.line}`);
 */
export function repairJsonlAudit(path: string, options: { readonly dryRun?: boolean } = {}): JsonlAuditRepair {
  const data = readAuditBytes(path);
  const parsed = parseAuditText(data);
  const others = parsed.problems.filter((p) => p.code !== 'AUDIT_TORN_TAIL');
  const refuse = (why: string): TrustError =>
    new TrustError('AUDIT_REPAIR_REFUSED', `audit file ${path} was not repaired: ${why}`, {
      problems: others,
      hint:
        'a repair only removes an incomplete last line; this damage is not a crash: keep the file as evidence ' +
        'and find out who changed it',
    });
  if (others.length > 0) throw refuse(others.map((p) => p.message).join('; '));
  const verdict = verifyChain(parsed.events);
  if (!verdict.ok) throw refuse(verdict.reason);
  const tail = parsed.tornTail;
  if (tail === undefined)
    return {
      torn: false,
      removedBytes: 0,
      removed: '',
      keptBytes: data.length,
      count: parsed.events.length,
      changed: false,
    };
  const result = {
    torn: true,
    line: tail.line,
    removedBytes: tail.bytes,
    removed: data.subarray(tail.offset).toString('utf8'),
    keptBytes: tail.offset,
    count: parsed.events.length,
  };
  if (options.dryRun) return { ...result, changed: false };
  const fd = openSync(path, 'r+');
  try {
    // The file must still be what was judged: a writer that appended meanwhile owns it.
    const now = Buffer.alloc(data.length);
    const same =
      fstatSync(fd).size === data.length && readSync(fd, now, 0, data.length, 0) === data.length && now.equals(data);
    if (!same) throw refuse('the file changed while it was being checked (is a sink still writing to it?)');
    ftruncateSync(fd, tail.offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { ...result, changed: true };
}
