import { closeSync, existsSync, fstatSync, fsyncSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import type { AuditEvent, AuditSink } from '../audit-event.js';
import { GENESIS_HASH, computeEventHash, describeMalformedEvent, sealEvent } from '../audit-chain.js';
import { canonicalJson } from '../canonical-json.js';
import { TrustError, type Problem } from '../error.js';

/** A sink that appends one JSON line per event to a file. */
export interface JsonlAuditSink extends AuditSink {
  /** The hash of the last event written (or found on open). */
  head(): string;
  /** Closes the file. Recording after close throws `AUDIT_SINK_CLOSED`. */
  close(): void;
}

export interface JsonlAuditSinkOptions {
  /** Default: the system clock. */
  readonly clock?: () => Date;
  /** fsync after every event, so a crash loses at most the event being written. Default true. */
  readonly fsync?: boolean;
}

const corrupt = (path: string, why: string, cause?: unknown): TrustError =>
  new TrustError('AUDIT_FILE_CORRUPT', `audit file ${path}: ${why}`, {
    cause,
    hint: 'check it with "trust audit verify"; to start a new chain, move the file aside (keep it as evidence)',
  });

/** Reads the last line of an open file without reading the whole file. */
function readLastLine(fd: number, size: number, path: string): string {
  let chunk = 64 * 1024;
  for (;;) {
    const length = Math.min(size, chunk);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const text = buffer.toString('utf8');
    if (!text.endsWith('\n')) throw corrupt(path, 'the last line is incomplete (no newline): a write was interrupted');
    const body = text.slice(0, -1);
    const nl = body.lastIndexOf('\n');
    if (nl >= 0) return body.slice(nl + 1);
    if (length === size) return body;
    chunk *= 4;
  }
}

function checkEvent(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && (value as { v?: unknown }).v !== 1) return 'format version is not 1';
  return describeMalformedEvent(value);
}

/**
 * Opens (or creates, mode 0600) a JSONL audit file and continues its chain: the last event is
 * read and checked on open, so new events link to it. A corrupt or incomplete last line throws
 * `AUDIT_FILE_CORRUPT` with a hint; the file is never rewritten. One process should write a
 * file at a time. Use `readJsonlAudit` plus `verifyChain` to check the whole file.
 *
 * @example
 * const sink = createJsonlAuditSink('/var/log/trust/audit.jsonl');
 * sink.record({ principal, action: 'egress.http', target: 'https://api.example.com/', decision: 'allow' });
 * sink.close();
 */
export function createJsonlAuditSink(path: string, options: JsonlAuditSinkOptions = {}): JsonlAuditSink {
  const clock = options.clock ?? (() => new Date());
  const fsync = options.fsync ?? true;
  const fd = openSync(path, 'a+', 0o600);
  let head = GENESIS_HASH;
  try {
    const size = fstatSync(fd).size;
    if (size > 0) {
      const line = readLastLine(fd, size, path);
      let last: unknown;
      try {
        last = JSON.parse(line);
      } catch (cause) {
        throw corrupt(path, 'the last line is not JSON', cause);
      }
      const problem = checkEvent(last);
      if (problem) throw corrupt(path, `the last event is malformed: ${problem}`);
      if (computeEventHash(last as AuditEvent) !== (last as AuditEvent).hash) throw corrupt(path, 'the last event does not match its hash');
      head = (last as AuditEvent).hash;
    }
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  let open = true;
  return Object.freeze({
    record(input) {
      if (!open) throw new TrustError('AUDIT_SINK_CLOSED', `audit file ${path} is closed`, { hint: 'create a new sink' });
      const event = sealEvent(input, head, clock().toISOString());
      writeSync(fd, `${canonicalJson(event)}\n`);
      if (fsync) fsyncSync(fd);
      head = event.hash;
      return event;
    },
    head: () => head,
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  } satisfies JsonlAuditSink);
}

/**
 * Reads every event of a JSONL audit file. Each line must be a well-formed `v: 1` event; bad
 * lines throw `AUDIT_FILE_CORRUPT` whose `problems` name every bad line (`line 3`). A missing
 * or unreadable file throws `AUDIT_FILE_READ`. The chain itself is checked by `verifyChain`.
 *
 * @example
 * const verdict = verifyChain(readJsonlAudit('/var/log/trust/audit.jsonl'));
 */
export function readJsonlAudit(path: string): AuditEvent[] {
  if (!existsSync(path)) throw new TrustError('AUDIT_FILE_READ', `audit file ${path} does not exist`, { hint: 'check the path' });
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new TrustError('AUDIT_FILE_READ', `cannot read audit file ${path}`, { cause, hint: 'check the path and its permissions' });
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
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
    if (problem) problems.push({ code: 'AUDIT_LINE_INVALID', path: where, message: `${where} is not an audit event: ${problem}`, severity: 'error' });
    else events.push(value as AuditEvent);
  });
  if (problems.length > 0) {
    throw new TrustError('AUDIT_FILE_CORRUPT', `audit file ${path}: ${problems.map((p) => p.message).join('; ')}`, {
      problems,
      hint: 'the listed lines were damaged or written by something else; keep the file as evidence',
    });
  }
  return events;
}
