import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { TrustError } from '@trust/core';

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
  let parts: Buffer[] = [];
  let size = 0;
  let stopped = false;
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
          return;
        }
        if (size + (nl - start) > max) return tooLong();
        const piece = chunk.subarray(start, nl);
        const line = parts.length === 0 ? piece : Buffer.concat([...parts, piece]);
        parts = [];
        size = 0;
        start = nl + 1;
        deliver(line);
      }
    },
    clear() {
      stopped = true;
      parts = [];
      size = 0;
    },
    pending: () => size,
  };
}
