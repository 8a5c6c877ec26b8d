import { existsSync, readFileSync } from 'node:fs';
import type { AuditEvent } from '../audit-event.js';
import { describeMalformedEvent } from '../audit-chain.js';
import { TrustError, type Problem } from '../error.js';

/** A problem with an event value read from a file, or undefined when it is a `v: 1` event. */
export function checkEvent(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && (value as { v?: unknown }).v !== 1)
    return 'format version is not 1';
  return describeMalformedEvent(value);
}

/** The message of a torn tail: what it is, and how to remove it. */
export function tornTailMessage(where: string): string {
  return (
    `${where} is incomplete (no newline): a write was interrupted by a crash or a full disk, which is not an ` +
    `edit; remove it with "trust audit verify --repair"`
  );
}

/** What a JSONL audit file's text holds: its events, the bad lines and the torn tail, if any. */
export interface ParsedAuditText {
  readonly events: AuditEvent[];
  readonly problems: Problem[];
  /** Bytes after the last newline (a write that never finished), or undefined when none. */
  readonly tornTail?: { readonly line: number; readonly offset: number; readonly bytes: number };
}

/**
 * Parses the bytes of a JSONL audit file. Every complete line (ending in a newline) must be a
 * `v: 1` event; bytes after the last newline are a torn tail, reported as problem
 * `AUDIT_TORN_TAIL` and never read as an event, even when they happen to be JSON: the sink
 * acknowledges an event only once its newline is on disk.
 */
export function parseAuditText(data: Buffer): ParsedAuditText {
  const lastNl = data.lastIndexOf(0x0a);
  const kept = data.subarray(0, lastNl + 1).toString('utf8');
  const lines = kept === '' ? [] : kept.slice(0, -1).split('\n');
  const events: AuditEvent[] = [];
  const problems: Problem[] = [];
  lines.forEach((line, i) => {
    const where = `line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problems.push({ code: 'AUDIT_LINE_INVALID', path: where, message: `${where} is not JSON`, severity: 'error' });
      return;
    }
    const problem = checkEvent(value);
    if (problem)
      problems.push({
        code: 'AUDIT_LINE_INVALID',
        path: where,
        message: `${where} is not an audit event: ${problem}`,
        severity: 'error',
      });
    else events.push(value as AuditEvent);
  });
  if (lastNl + 1 === data.length) return { events, problems };
  const line = lines.length + 1;
  problems.push({
    code: 'AUDIT_TORN_TAIL',
    path: `line ${line}`,
    message: tornTailMessage(`line ${line}`),
    severity: 'error',
  });
  return { events, problems, tornTail: { line, offset: lastNl + 1, bytes: data.length - lastNl - 1 } };
}

/** Reads a whole audit file; a missing or unreadable file throws `AUDIT_FILE_READ`. */
export function readAuditBytes(path: string): Buffer {
  if (!existsSync(path))
    throw new TrustError('AUDIT_FILE_READ', `audit file ${path} does not exist`, { hint: 'check the path' });
  try {
    return readFileSync(path);
  } catch (cause) {
    throw new TrustError('AUDIT_FILE_READ', `cannot read audit file ${path}`, {
      cause,
      hint: 'check the path and its permissions',
    });
  }
}

/**
 * Reads every event of a JSONL audit file. Each line must be a well-formed `v: 1` event; bad
 * lines throw `AUDIT_FILE_CORRUPT` whose `problems` name every bad line (`line 3`). An
 * incomplete last line (no newline: a crash or a full disk interrupted a write) is the problem
 * `AUDIT_TORN_TAIL`; `repairJsonlAudit` removes it. A missing or unreadable file throws
 * `AUDIT_FILE_READ`. The chain itself is checked by `verifyChain`. With `allowTornTail`, a torn
 * tail is skipped instead (the events before it are returned); every other problem still throws.
 *
 * @example
 * const verdict = verifyChain(readJsonlAudit('/var/log/trust/audit.jsonl'));
 */
export function readJsonlAudit(path: string, options: { readonly allowTornTail?: boolean } = {}): AuditEvent[] {
  const parsed = parseAuditText(readAuditBytes(path));
  const { events } = parsed;
  // A reader that shows events (not one that judges the file) may skip a torn tail: those bytes
  // were never an acknowledged event. Any other problem still throws.
  const problems =
    options.allowTornTail === true ? parsed.problems.filter((p) => p.code !== 'AUDIT_TORN_TAIL') : parsed.problems;
  if (problems.length > 0) {
    const torn = problems.length === 1 && problems[0]?.code === 'AUDIT_TORN_TAIL';
    throw new TrustError('AUDIT_FILE_CORRUPT', `audit file ${path}: ${problems.map((p) => p.message).join('; ')}`, {
      problems,
      hint: torn
        ? 'the events before the torn line are intact; "trust audit verify --repair" removes only the torn line'
        : 'the listed lines were damaged or written by something else; keep the file as evidence',
    });
  }
  return events;
}
