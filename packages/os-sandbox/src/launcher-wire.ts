// The one encoder of everything this process writes to the launcher's spawn server (native/wire.c
// decodes it). Version 1, little-endian, every field with an explicit length:
//
//   message  = u8 version (1) | u8 kind | u32 id | u32 length | body (length bytes)
//   string   = u32 n | n bytes (UTF-8, never a NUL: the native side refuses one)
//   words    = u32 count | count × string
//   'R', 'P' = words launcher-arguments | words bwrap-options | u32 n | n bytes seccomp | u8 flags
//              (flags: 1 stdin, 2 stdout, 4 stderr pipe; the server writes the bwrap options into
//              bubblewrap's own NUL-separated --args file itself, after checking every word)
//   'G'      = words argv | u32 count | count × (string name | string value) | string cwd
//   'A'      = (empty)
//   'K'      = u8 signal
//
// Nothing is ever joined with NUL here: a NUL inside a word is refused by the encoder (and again by
// the decoder), so no value can end one word and start the next.
import { TrustError } from '@trust/core';

/** The wire format's version; the server refuses any other (and exits: it is not our host). */
export const WIRE_VERSION = 1;
/** Bytes before a message's body: version, kind, id, length. */
export const WIRE_HEADER_BYTES = 10;

/** One run for the spawn server: the launcher's arguments and what its fds 0-4 carry. */
export interface LaunchRequest {
  /** The launcher's arguments (without argv[0]). */
  readonly args: readonly string[];
  /** bwrap's options for `--args 3` (fd 3), one word each; absent = /dev/null. */
  readonly options?: readonly string[];
  /** The seccomp program for fd 4; absent = /dev/null. */
  readonly fd4?: Uint8Array;
  /** A pipe for each of these, else /dev/null. */
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
}

/** A prepared run's command: what bwrap's `--chdir`, `--clearenv`/`--setenv` and command would say. */
export interface AwaitedCommand {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

const refuse = (what: string): never => {
  throw new TrustError('SANDBOX_WIRE_INVALID', `${what} contains a NUL byte and cannot be sent to the launcher`, {
    hint: 'this is a bug in the caller of the encoder: values are validated before planning (evaluateSpawnRequest)',
  });
};

/** Sizes, then writes, one message into a single buffer (it is built on every spawn's path). */
function encode(
  kind: string,
  id: number,
  fields: readonly (readonly string[] | string | Uint8Array | number)[],
  what: string,
): Buffer {
  let size = WIRE_HEADER_BYTES;
  for (const f of fields) {
    if (typeof f === 'number') size += 1;
    else if (typeof f === 'string') {
      if (f.includes('\0')) refuse(what);
      size += 4 + Buffer.byteLength(f, 'utf8');
    } else if (f instanceof Uint8Array) size += 4 + f.length;
    else {
      size += 4;
      for (const w of f) {
        if (w.includes('\0')) refuse(what);
        size += 4 + Buffer.byteLength(w, 'utf8');
      }
    }
  }
  const b = Buffer.allocUnsafe(size);
  b[0] = WIRE_VERSION;
  b[1] = kind.charCodeAt(0);
  b.writeUInt32LE(id >>> 0, 2);
  b.writeUInt32LE(size - WIRE_HEADER_BYTES, 6);
  let o = WIRE_HEADER_BYTES;
  const str = (s: string): void => {
    const n = b.write(s, o + 4, 'utf8');
    b.writeUInt32LE(n, o);
    o += 4 + n;
  };
  for (const f of fields) {
    if (typeof f === 'number') b[o++] = f;
    else if (typeof f === 'string') str(f);
    else if (f instanceof Uint8Array) {
      b.writeUInt32LE(f.length, o);
      b.set(f, o + 4);
      o += 4 + f.length;
    } else {
      b.writeUInt32LE(f.length, o);
      o += 4;
      for (const w of f) str(w);
    }
  }
  return b;
}

/**
 * The 'R' message (or 'P', a run prepared as far as its command) that asks the server for run `id`.
 *
 * @example
 * control.write(
 *   encodeRequest(1, {
 *     args: ['--', '/usr/bin/bwrap', '--args', '3', '--', '/bin/true'],
 *     options: ['--unshare-all'],
 *     stdin: false,
 *     stdout: true,
 *     stderr: true,
 *   }),
 * );
 */
export function encodeRequest(id: number, r: LaunchRequest, kind: 'R' | 'P' = 'R'): Buffer {
  const flags = (r.stdin ? 1 : 0) | (r.stdout ? 2 : 0) | (r.stderr ? 4 : 0);
  return encode(
    kind,
    id,
    [r.args, r.options ?? [], r.fd4 ?? new Uint8Array(0), flags],
    'a launcher argument or bwrap option',
  );
}

/**
 * The 'G' message that hands prepared run `id` its command (forwarded to the launcher's await.c).
 *
 * @example
 * control.write(encodeCommand(1, { argv: ['/bin/true'], env: { PATH: '/usr/bin' }, cwd: '/' }));
 */
export function encodeCommand(id: number, c: AwaitedCommand): Buffer {
  const env = Object.entries(c.env);
  const fields: (readonly string[] | string | Uint8Array | number)[] = [c.argv];
  // The pair count as a u32 (four single bytes), then name and value of each entry.
  const n = env.length;
  fields.push(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff);
  for (const [name, value] of env) fields.push(name, value);
  fields.push(c.cwd);
  return encode('G', id, fields, 'an argument, environment entry or working directory');
}

/** The 'A' message: this process has opened run `id`'s pipes. */
export function encodeAck(id: number): Buffer {
  return encode('A', id, [], 'an acknowledgement');
}

/** The 'K' message: signal `signal` (SIGTERM to the run's launcher, or SIGKILL to its group). */
export function encodeKill(id: number, signal: number): Buffer {
  return encode('K', id, [signal & 0xff], 'a signal');
}

/**
 * bubblewrap's own `--args` format (NUL-terminated words), for a run started without the spawn
 * server. A word with a NUL would become two options, so it is refused here as well.
 *
 * @example
 * encodeBwrapArgs(['--chdir', '/w']); // "--chdir\0/w\0"
 */
export function encodeBwrapArgs(words: readonly string[]): Buffer {
  for (const w of words) if (w.includes('\0')) refuse('a bwrap option');
  return Buffer.from(words.map((w) => `${w}\0`).join(''), 'utf8');
}
