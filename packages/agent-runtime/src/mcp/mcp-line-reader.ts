import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { TrustError } from '@trust/core';

const EMPTY = Buffer.alloc(0);

/** The longest JSON-RPC line a server may send by default (8 MiB). */
export const DEFAULT_MCP_MAX_LINE_BYTES = 8 * 1024 * 1024;

/** Options of {@link createMcpLineReader}. */
export interface McpLineReaderOptions {
  /** Bytes per line, newline excluded (default 8 MiB). A longer line ends the reader. */
  readonly maxLineBytes?: number;
  /** One parsed JSON-RPC message. Whatever it throws is reported through `onError`, never rethrown. */
  onMessage(message: JSONRPCMessage): void;
  /**
   * A problem. `fatal` (a line over the limit): the reader takes no more input, and the server
   * should be restarted. Otherwise (a line that is no JSON-RPC) the line was skipped.
   */
  onError(error: TrustError, fatal: boolean): void;
  /**
   * Called with true when parsing was deferred to the next turn of the event loop (the caller
   * should pause its source), and with false once the queue is drained. Messages are parsed for
   * at most `sliceMs` (default 4 ms) per turn, so a flood of messages cannot hold the event loop.
   */
  onBusy?(busy: boolean): void;
  readonly sliceMs?: number;
}

/** Feeds a server's stdout in; see {@link createMcpLineReader}. */
export interface McpLineReader {
  /** Takes one chunk; never throws. */
  push(chunk: Buffer): void;
  /** Drops what is buffered and takes no more input. */
  clear(): void;
  /** Bytes buffered for the current, unfinished line. */
  pending(): number;
}

/**
 * trust's own bounded reader of newline-delimited JSON-RPC, in front of the SDK's message
 * parser: it holds at most `maxLineBytes` of an unfinished line, refuses a longer one with
 * `MCP_LINE_TOO_LONG` (then stops: nothing after it is trusted to be framed right), and skips a
 * line that is no JSON-RPC with `MCP_MESSAGE_INVALID`. Nothing thrown by the parser or by
 * `onMessage` escapes `push`, so no input from a server can throw out of a stream listener.
 *
 * @example
 * const reader = createMcpLineReader({ onMessage: (m) => client.handle(m), onError: (e, fatal) => log(e, fatal) });
 * child.stdout.on('data', (chunk) => reader.push(chunk));
 */
export function createMcpLineReader(options: McpLineReaderOptions): McpLineReader {
  const max = options.maxLineBytes ?? DEFAULT_MCP_MAX_LINE_BYTES;
  const slice = options.sliceMs ?? 4;
  let parts: Buffer[] = [];
  let size = 0;
  let stopped = false;
  // Complete lines not yet parsed (at most what one paused source sent), and where the next one is.
  let queue: Buffer[] = [];
  let head = 0;
  let busy = false;
  let scheduled: NodeJS.Immediate | undefined;
  const setBusy = (b: boolean): void => {
    if (busy === b) return;
    busy = b;
    try {
      options.onBusy?.(b);
    } catch {
      /* a caller's hook must not break the stream */
    }
  };
  const work = (): void => {
    scheduled = undefined;
    const start = performance.now();
    while (head < queue.length && !stopped) {
      deliver(queue[head]!);
      queue[head++] = EMPTY;
      if (head < queue.length && performance.now() - start >= slice) {
        setBusy(true);
        scheduled = setImmediate(work);
        return;
      }
    }
    queue = [];
    head = 0;
    setBusy(false);
  };
  const report = (e: TrustError, fatal: boolean): void => {
    try {
      options.onError(e, fatal);
    } catch {
      /* a reporter that throws must not break the stream */
    }
  };
  const deliver = (line: Buffer): void => {
    let text = line.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch (e) {
      report(
        new TrustError(
          'MCP_MESSAGE_INVALID',
          `the server sent a line that is no JSON-RPC message (${text.length} chars)`,
          {
            cause: e,
            hint: 'the server must write only newline-delimited JSON-RPC to stdout; logs go to stderr',
          },
        ),
        false,
      );
      return;
    }
    try {
      options.onMessage(message);
    } catch (e) {
      report(new TrustError('MCP_MESSAGE_INVALID', `a server message could not be handled: ${String(e)}`), false);
    }
  };
  const tooLong = (): void => {
    stopped = true;
    parts = [];
    size = 0;
    queue = [];
    head = 0;
    report(
      new TrustError('MCP_LINE_TOO_LONG', `the server sent a line longer than ${max} bytes; the server is restarted`, {
        hint: 'a server must keep each JSON-RPC message under the line limit (maxLineBytes)',
      }),
      true,
    );
  };
  return {
    push(chunk) {
      if (stopped) return;
      let start = 0;
      while (!stopped) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl < 0) {
          const rest = chunk.length - start;
          if (size + rest > max) return tooLong();
          if (rest > 0) {
            parts.push(chunk.subarray(start));
            size += rest;
          }
          break;
        }
        if (size + (nl - start) > max) return tooLong();
        const piece = chunk.subarray(start, nl);
        const line = parts.length === 0 ? piece : Buffer.concat([...parts, piece]);
        parts = [];
        size = 0;
        start = nl + 1;
        queue.push(line);
      }
      if (scheduled === undefined) work();
    },
    clear() {
      stopped = true;
      parts = [];
      size = 0;
      queue = [];
      head = 0;
      if (scheduled !== undefined) clearImmediate(scheduled);
      scheduled = undefined;
    },
    pending: () => size,
  };
}
