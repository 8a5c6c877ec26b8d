import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

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
    },
  ): Promise<{ stdout: Readable; stderr: Readable; kill(): void; exit: Promise<unknown> }>;
}

/**
 * An MCP stdio transport whose server process runs inside `@trust/os-sandbox` (argv array, no
 * shell): JSON-RPC goes in through a stream piped to the sandboxed stdin and comes back from
 * its stdout.
 */
export class SandboxStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly input = new PassThrough();
  private readonly buffer = new ReadBuffer();
  private process?: { kill(): void };
  private closed = false;
  /** Last bytes of the server's stderr, for error messages. */
  stderrTail = '';

  constructor(
    private readonly sandbox: StdioSandbox,
    private readonly argv: readonly string[],
    private readonly env: Readonly<Record<string, string>>,
  ) {}

  async start(): Promise<void> {
    const p = await this.sandbox.spawn(this.argv, {
      env: this.env,
      stdin: this.input,
      timeoutMs: 86_400_000,
      maxOutputBytes: 1024 * 1024 * 1024,
    });
    this.process = p;
    p.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let msg: JSONRPCMessage | null;
        try {
          msg = this.buffer.readMessage();
        } catch (e) {
          this.onerror?.(e as Error);
          continue;
        }
        if (msg === null) break;
        this.onmessage?.(msg);
      }
    });
    p.stderr.on('data', (c: Buffer) => {
      this.stderrTail = (this.stderrTail + c.toString('utf8')).slice(-2000);
    });
    void p.exit.then(() => {
      if (!this.closed) {
        this.closed = true;
        this.onclose?.();
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('MCP server process has exited');
    this.input.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.end();
    this.process?.kill();
    this.buffer.clear();
    this.onclose?.();
  }
}
