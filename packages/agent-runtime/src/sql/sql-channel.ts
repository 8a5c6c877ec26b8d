import { deserialize, serialize } from 'node:v8';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { TrustError } from '@trust/core';

/**
 * The call channel between the host and an agent's SQL worker thread: shared memory, no message
 * on the common path. The host writes the request into `data` and flips the state word to
 * `REQUEST`; the worker (parked in `Atomics.wait`) runs it, writes the answer into the same
 * buffer and flips the state to `REPLY`. A message too large for the buffer travels over a
 * MessagePort instead (`*_PORT` states) and is taken with `receiveMessageOnPort`, so neither
 * side needs an event-loop turn. One request is in flight per agent: the host queues the rest.
 *
 * Control words (Int32): [0] state, [1] payload length, [2] codec, [3] writes sent (host),
 * [4] writes finished, checkpoint included (worker): the worker may hold the file's write lock
 * while [3] ≠ [4].
 *
 * Codecs as on the process pipe (sql-wire.ts): JSON text for the usual message, V8's structured
 * clone for one that holds what JSON cannot carry exactly (blobs, NaN/±Infinity, -0).
 */
export const STATE = Object.freeze({ IDLE: 0, REQUEST: 1, REQUEST_PORT: 2, REPLY: 3, REPLY_PORT: 4 });
const CODEC = Object.freeze({ JSON: 1, V8: 2 });
export const WRITES_SENT = 3;
export const WRITES_DONE = 4;

export interface SqlChannel {
  readonly ctl: Int32Array;
  readonly data: Uint8Array;
  /** The same bytes as a Buffer, for UTF-8 decoding without a copy. */
  readonly text: Buffer;
  /** This side's end of the port for messages that do not fit. */
  readonly port: MessagePort;
}

export interface SqlChannelBuffers {
  readonly ctl: SharedArrayBuffer;
  readonly data: SharedArrayBuffer;
}

export function createChannelBuffers(dataBytes: number): SqlChannelBuffers {
  return { ctl: new SharedArrayBuffer(8 * 4), data: new SharedArrayBuffer(dataBytes) };
}

export function openChannel(buffers: SqlChannelBuffers, port: MessagePort): SqlChannel {
  return {
    ctl: new Int32Array(buffers.ctl),
    data: new Uint8Array(buffers.data),
    text: Buffer.from(buffers.data),
    port,
  };
}

const encoder = new TextEncoder();

function writeInBand(ch: SqlChannel, value: unknown, binary: boolean): boolean {
  if (!binary) {
    const text = JSON.stringify(value);
    if (text.length > ch.data.length) return false;
    const r = encoder.encodeInto(text, ch.data);
    if (r.read !== text.length) return false;
    ch.ctl[1] = r.written;
    ch.ctl[2] = CODEC.JSON;
    return true;
  }
  const bytes = serialize(value);
  if (bytes.length > ch.data.length) return false;
  ch.data.set(bytes);
  ch.ctl[1] = bytes.length;
  ch.ctl[2] = CODEC.V8;
  return true;
}

/**
 * Sends one message and flips the state to `inBand` (or `viaPort` when it does not fit), then
 * wakes the other side; returns the state set. The port message is queued before the state
 * changes, so the reader finds it.
 */
export function send(ch: SqlChannel, value: unknown, binary: boolean, inBand: number, viaPort: number): number {
  let state = inBand;
  if (!writeInBand(ch, value, binary)) {
    ch.port.postMessage(value);
    state = viaPort;
  }
  Atomics.store(ch.ctl, 0, state);
  Atomics.notify(ch.ctl, 0);
  return state;
}

/** Reads the message the other side sent, given the state it set. */
export function receive<T>(ch: SqlChannel, state: number): T {
  if (state === STATE.REQUEST_PORT || state === STATE.REPLY_PORT) {
    const m = receiveMessageOnPort(ch.port);
    if (!m) throw new TrustError('SQL_HOST_FAILED', 'a message announced on the SQL channel is missing');
    return m.message as T;
  }
  const n = ch.ctl[1]!;
  if (ch.ctl[2] === CODEC.JSON) return JSON.parse(ch.text.toString('utf8', 0, n)) as T;
  return deserialize(ch.data.subarray(0, n)) as T;
}
