import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { TrustError } from '@trust/core';
import { createMcpLineReader } from './mcp-line-reader.js';

/** What the transport needs from an `@trust/os-sandbox` sandbox. */
export interface StdioSandbox {
  spawn(
    argv: readonly string[],
    options?: {
      env?: Readonly<Record<string, string>>;
      stdin?: Readable;
      timeoutMs?: number;
      maxOutputBytes?: number;
      cwd?: string;
      /** A long-lived service: no default wall-clock or output budget (each message is bounded here). */
      service?: boolean;
    },
  ): Promise<{ stdout: Readable; stderr: Readable; kill(): void; exit: Promise<unknown> }>;
}

/** Options of {@link SandboxStdioTransport}. */
export interface StdioTransportOptions {
  /** Bytes per JSON-RPC line from the server (default 8 MiB); a longer line ends the process. */
  readonly maxLineBytes?: number;
  /** Bytes of stderr kept in `stderrTail` (default 4 KiB). */
  readonly stderrTailBytes?: number;
  /** Each stderr chunk as text (for the agent's logs; the receiver bounds what it keeps). */
  readonly onStderr?: (text: string) => void;
}

/**
 * An MCP stdio transport whose server process runs inside `@trust/os-sandbox` (argv array, no
 * shell) as a service run: JSON-RPC goes in through a stream piped to the sandboxed stdin and
 * comes back from its stdout through trust's bounded line reader. A line over the limit is
 * reported through `onerror` with `MCP_LINE_TOO_LONG` and the process is ended; no input from
 * the server can throw out of a stream listener.
 *
 * @example
 * const transport = new SandboxStdioTransport(sandbox, ['/usr/bin/node', 'server.mjs'], {}, { maxLineBytes: 1 << 20 });
 * await client.connect(transport);
 */
export class SandboxStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly input = new PassThrough();
  private process?: { kill(): void };
  private closed = false;
  /** Last bytes of the server's stderr, for error messages. */
  stderrTail = '';
  /** Why the transport ended the server itself (a line over the limit), or null. */
  fault: TrustError | null = null;

  constructor(
    private readonly sandbox: StdioSandbox,
    private readonly argv: readonly string[],
    private readonly env: Readonly<Record<string, string>>,
    private readonly options: StdioTransportOptions = {},
  ) {}

  async start(): Promise<void> {
    const p = await this.sandbox.spawn(this.argv, { env: this.env, stdin: this.input, service: true });
    this.process = p;
    const reader = createMcpLineReader({
      ...(this.options.maxLineBytes !== undefined ? { maxLineBytes: this.options.maxLineBytes } : {}),
      onMessage: (m) => this.onmessage?.(m),
      // A flood is parsed a few ms per turn; meanwhile stdout is paused, so the pipe holds the rest.
      onBusy: (busy) => (busy ? p.stdout.pause() : p.stdout.resume()),
      onError: (e, fatal) => {
        if (fatal) {
          this.fault = e;
          this.safe(() => this.onerror?.(e));
          void this.close();
        } else this.safe(() => this.onerror?.(e));
      },
    });
    const tailBytes = this.options.stderrTailBytes ?? 4096;
    p.stdout.on('data', (chunk: Buffer) => reader.push(chunk));
    p.stdout.on('error', () => undefined);
    p.stderr.on('error', () => undefined);
    p.stderr.on('data', (c: Buffer) => {
      const text = c.toString('utf8');
      this.stderrTail = (this.stderrTail + text).slice(-tailBytes);
      this.safe(() => this.options.onStderr?.(text));
    });
    const ended = (): void => {
      reader.clear();
      if (!this.closed) {
        this.closed = true;
        this.safe(() => this.onclose?.());
      }
    };
    void p.exit.then(ended, ended);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new TrustError('MCP_SERVER_UNAVAILABLE', 'the MCP server process has exited');
    this.input.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.end();
    this.process?.kill();
    this.safe(() => this.onclose?.());
  }

  private safe(f: () => void): void {
    try {
      f();
    } catch {
      /* a handler that throws must not escape a stream listener */
    }
  }
}
