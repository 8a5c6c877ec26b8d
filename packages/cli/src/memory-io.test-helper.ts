import { PassThrough } from 'node:stream';
import type { CliIo } from './io.js';

/** An in-memory CliIo for unit tests: collects stdout and stderr. */
export function createMemoryIo(options: { env?: Record<string, string>; tty?: boolean } = {}) {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (s: string | Uint8Array) => (out += String(s)), isTTY: options.tty ?? false },
    stderr: { write: (s: string | Uint8Array) => (err += String(s)), isTTY: options.tty ?? false },
    stdin: new PassThrough(),
    env: options.env ?? {},
    cwd: process.cwd(),
    platform: process.platform,
    signal: new AbortController().signal,
  };
  return { io, stdout: () => out, stderr: () => err };
}
