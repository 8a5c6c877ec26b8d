import { deserialize, serialize } from 'node:v8';

/**
 * The call channel between the host and a plugin's worker: two shared buffers, no messages on
 * the common path. The host writes the serialised request into `data` and flips the state word
 * to `REQUEST`; the worker (parked in `Atomics.wait`) runs the call, writes the serialised
 * outcome into the same buffer and flips the state to `REPLY`. An outcome too large for the
 * buffer travels as a message instead (state `REPLY_MESSAGE`).
 *
 * Control words (Int32): `[0]` state, `[1]` payload length, `[2]` payload encoding.
 * Only one call is in flight per plugin; the host queues the rest, so request and reply share
 * the buffer and the words.
 *
 * Encoding: payloads of plain scalars (the common case: numbers, strings, booleans, null) go as
 * JSON text, which is several times cheaper than `v8.serialize` for small values; everything
 * else (bigints, typed arrays, nested data, guest output) uses the structured-clone format.
 */
export const CALL_STATE = Object.freeze({ IDLE: 0, REQUEST: 1, REPLY: 2, REPLY_MESSAGE: 3 });

const ENCODING = Object.freeze({ V8: 0, JSON: 1 });

export interface CallChannel {
  readonly ctl: Int32Array;
  readonly data: Uint8Array;
  /** The same bytes as a Buffer, for UTF-8 decoding without a copy. */
  readonly text: Buffer;
}

const encoder = new TextEncoder();

/** True for values JSON carries exactly: null, booleans, strings, finite numbers other than -0. */
export function isPlainScalar(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  return typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0);
}

/** Writes a payload into the buffer. Returns false when it does not fit; throws when it cannot be cloned. */
export function writePayload(ch: CallChannel, value: unknown, json: boolean): boolean {
  if (json) {
    const text = JSON.stringify(value);
    const r = encoder.encodeInto(text, ch.data);
    if (r.read !== text.length) return false;
    ch.ctl[1] = r.written;
    ch.ctl[2] = ENCODING.JSON;
    return true;
  }
  const bytes = serialize(value);
  if (bytes.length > ch.data.length) return false;
  ch.data.set(bytes);
  ch.ctl[1] = bytes.length;
  ch.ctl[2] = ENCODING.V8;
  return true;
}

/** Reads the payload the other side wrote last. */
export function readPayload<T>(ch: CallChannel): T {
  const n = ch.ctl[1]!;
  if (ch.ctl[2] === ENCODING.JSON) return JSON.parse(ch.text.toString('utf8', 0, n)) as T;
  return deserialize(ch.data.subarray(0, n)) as T;
}

/** Allocates the shared buffers; `maxBytes` bounds a request (and an in-band reply). */
export function createCallBuffers(maxBytes: number): { ctl: SharedArrayBuffer; data: SharedArrayBuffer } {
  return { ctl: new SharedArrayBuffer(16), data: new SharedArrayBuffer(maxBytes) };
}

export function openCallChannel(buffers: { ctl: SharedArrayBuffer; data: SharedArrayBuffer }): CallChannel {
  return { ctl: new Int32Array(buffers.ctl), data: new Uint8Array(buffers.data), text: Buffer.from(buffers.data) };
}

/**
 * Host side: posts one call. Returns false when it does not fit the buffer; throws when the
 * arguments cannot be cloned.
 */
export function postRequest(ch: CallChannel, name: string, args: readonly unknown[]): boolean {
  if (!writePayload(ch, { name, args }, args.every(isPlainScalar))) return false;
  Atomics.store(ch.ctl, 0, CALL_STATE.REQUEST);
  Atomics.notify(ch.ctl, 0);
  return true;
}

/**
 * Worker side: serves calls forever. The worker blocks in `Atomics.wait` between calls (in
 * short slices so `terminate()` always lands) and never needs its event loop for a call.
 * It waits on the value it wrote last, so it does not spin while the host reads a reply.
 */
export function serveCalls<Req, Reply>(
  ch: CallChannel,
  handle: (request: Req) => Reply,
  isPlain: (reply: Reply) => boolean,
  postLarge: (reply: Reply) => void,
  fallback: (error: unknown) => Reply,
): never {
  let seen: number = Atomics.load(ch.ctl, 0);
  for (;;) {
    Atomics.wait(ch.ctl, 0, seen, 50);
    seen = Atomics.load(ch.ctl, 0);
    if (seen !== CALL_STATE.REQUEST) continue;
    const reply = handle(readPayload<Req>(ch));
    let fits: boolean;
    try {
      fits = writePayload(ch, reply, isPlain(reply));
    } catch (e) {
      fits = writePayload(ch, fallback(e), false);
    }
    // The state is final before the message goes out: the host may post the next request as
    // soon as the message arrives, and that request must not be overwritten.
    seen = fits ? CALL_STATE.REPLY : CALL_STATE.REPLY_MESSAGE;
    Atomics.store(ch.ctl, 0, seen);
    Atomics.notify(ch.ctl, 0);
    if (!fits) postLarge(reply);
  }
}
