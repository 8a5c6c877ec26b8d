import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import type { AuditEvent, AuditSink } from '../audit-event.js';
import { GENESIS_HASH, computeEventHash, sealEvent } from '../audit-chain.js';
import { canonicalJson } from '../canonical-json.js';
import { TrustError } from '../error.js';
import { checkEvent, tornTailMessage } from './jsonl-audit-read.js';

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

/** The last line has no newline: a write that never finished (the existing report, plus the repair). */
const torn = (path: string): TrustError =>
  new TrustError(
    'AUDIT_FILE_CORRUPT',
    `audit file ${path}: the last line is incomplete (no newline): a write was interrupted`,
    {
      problems: [
        { code: 'AUDIT_TORN_TAIL', path: 'last line', message: tornTailMessage('the last line'), severity: 'error' },
      ],
      hint:
        'the events before it are intact: "trust audit verify --repair" removes only the incomplete line (or ' +
        'move the file aside to start a new chain; keep it as evidence)',
    },
  );

/** Writes all of `data` at the end of the file, looping on short writes (a full disk writes part). */
function writeAll(fd: number, data: Buffer): void {
  let done = 0;
  while (done < data.length) {
    const n = writeSync(fd, data, done, data.length - done);
    // A write that makes no progress and reports no error would loop forever: treat it as one.
    if (!(n > 0)) throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
    done += n;
  }
}

/** Reads the last line of an open file without reading the whole file. */
function readLastLine(fd: number, size: number, path: string): string {
  let chunk = 64 * 1024;
  for (;;) {
    const length = Math.min(size, chunk);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const text = buffer.toString('utf8');
    if (!text.endsWith('\n')) throw torn(path);
    const body = text.slice(0, -1);
    const nl = body.lastIndexOf('\n');
    if (nl >= 0) return body.slice(nl + 1);
    if (length === size) return body;
    chunk *= 4;
  }
}

/**
 * Opens (or creates, mode 0600) a JSONL audit file and continues its chain: the last event is
 * read and checked on open, so new events link to it. A corrupt or incomplete last line throws
 * `AUDIT_FILE_CORRUPT` with a hint (an incomplete one, a torn tail, is removed by
 * `repairJsonlAudit`); opening never rewrites the file. One process should write a file at a
 * time. Use `readJsonlAudit` plus `verifyChain` to check the whole file.
 *
 * Each event is written completely or not at all: short writes are continued, and a failed
 * write or fsync (a full disk, an I/O error) cuts the file back to its last complete line and
 * throws `AUDIT_WRITE_FAILED`; the head then stays at the last event wholly on disk, and the
 * sink can record again once writes succeed. If even the cut fails, the sink refuses every
 * later event with the same code.
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
  // The end of the last complete line: what a failed write is cut back to.
  let size = 0;
  try {
    size = fstatSync(fd).size;
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
      if (computeEventHash(last as AuditEvent) !== (last as AuditEvent).hash)
        throw corrupt(path, 'the last event does not match its hash');
      head = (last as AuditEvent).hash;
    }
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  let open = true;
  // Set when a failed write could not be cut back: the file's end is then not a line boundary.
  let stuck: TrustError | undefined;
  return Object.freeze({
    record(input) {
      if (!open)
        throw new TrustError('AUDIT_SINK_CLOSED', `audit file ${path} is closed`, { hint: 'create a new sink' });
      if (stuck) throw stuck;
      const event = sealEvent(input, head, clock().toISOString());
      const line = Buffer.from(`${canonicalJson(event)}\n`, 'utf8');
      try {
        writeAll(fd, line);
        if (fsync) fsyncSync(fd);
      } catch (cause) {
        const why = (cause as { code?: string }).code ?? 'write error';
        try {
          ftruncateSync(fd, size);
          if (fsync) fsyncSync(fd);
        } catch (undo) {
          stuck = new TrustError(
            'AUDIT_WRITE_FAILED',
            `audit file ${path}: an event could not be written (${why}) and its partial line could not be ` +
              `removed; this sink records nothing more`,
            {
              cause: undo,
              hint: 'free disk space, then run "trust audit verify --repair" on the file and open a new sink',
            },
          );
          throw stuck;
        }
        throw new TrustError(
          'AUDIT_WRITE_FAILED',
          `audit file ${path}: the event could not be written (${why}); nothing was recorded and the chain ` +
            `is unchanged`,
          {
            cause,
            hint:
              why === 'ENOSPC'
                ? 'free disk space; the sink can record again once there is room'
                : 'check the file system; the sink can record again once writes succeed',
          },
        );
      }
      // Only now is the whole line on disk (and synced): the head may move past it.
      size += line.length;
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
