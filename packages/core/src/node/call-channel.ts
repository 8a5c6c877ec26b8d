import { deserialize, serialize } from 'node:v8';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { TrustError } from '../error.js';

/**
 * One synchronous call channel between a host thread and a worker thread, in shared memory: no
 * message and no event-loop turn on the common path. The caller writes a frame into `data` and
 * flips the state word to `REQUEST`; the worker (parked in `Atomics.wait`) reads it, answers with
 * a frame in the same buffer and flips the state to `REPLY`. One call is in flight at a time: the
 * caller queues the rest, so request and reply share the buffer.
 *
 * Frame (version 1), at the start of `data`: `[u8 version][u8 codec][u16 0][u32 LE length][payload]`.
 * Codecs: JSON text (several times cheaper than `v8.serialize` for small plain values) or V8's
 * structured-clone format (bigints, typed arrays, undefined, NaN, -0). A payload larger than the
 * buffer travels, as the same bytes, over the channel's `overflow` MessagePort (codec bit
 * `VIA_PORT`) and is taken with `receiveMessageOnPort`, so that path needs no event-loop turn
 * either. Nothing larger than `maxMessageBytes` is sent at all: `CHANNEL_MESSAGE_TOO_LARGE`.
 *
 * Control words (Int32): `[0]` state, then `userWords` words the two sides may use as they like.
 */
export const CALL_CHANNEL_VERSION = 1;
export const CALL_STATE = Object.freeze({ IDLE: 0, REQUEST: 1, REPLY: 2 });
/** How a payload is encoded: JSON text, or V8's structured-clone format. */
export type CallCodec = 'json' | 'v8';

const HEADER_BYTES = 8;
const CODEC = Object.freeze({ JSON: 1, V8: 2, VIA_PORT: 0x80 });
/** Default bound of one message, in-band or over the port. */
const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;
/** The first control word left to the two sides. */
const FIRST_USER_WORD = 1;

export interface CallChannelBuffers {
  readonly ctl: SharedArrayBuffer;
  readonly data: SharedArrayBuffer;
}

export interface CallChannelOptions {
  /** This side's end of a MessagePort pair for payloads larger than the buffer; without it they are refused. */
  readonly overflow?: MessagePort;
  /** Largest message this side sends or accepts, in bytes; default 256 MiB. */
  readonly maxMessageBytes?: number;
  /** Largest message this side sends, if lower than `maxMessageBytes` (e.g. requests capped, answers not). */
  readonly maxSendBytes?: number;
}

export interface CallChannel {
  /** Control words: `[0]` the state, then the user words (see `userWord`). */
  readonly ctl: Int32Array;
  /** Payload bytes that fit in the shared buffer. */
  readonly inBandBytes: number;
  readonly maxMessageBytes: number;
  readonly maxSendBytes: number;
  readonly data: Uint8Array;
  /** The same bytes as a Buffer, for UTF-8 decoding without a copy. */
  readonly text: Buffer;
  readonly view: DataView;
  readonly overflow: MessagePort | undefined;
}

/**
 * Allocates a channel's shared memory: `inBandBytes` of payload plus the frame header, and
 * `userWords` extra control words.
 *
 * @example
 * const buffers = createCallChannelBuffers(1024 * 1024, 2); // pass to the worker in workerData
 */
export function createCallChannelBuffers(inBandBytes: number, userWords = 0): CallChannelBuffers {
  return {
    ctl: new SharedArrayBuffer((FIRST_USER_WORD + userWords) * 4),
    data: new SharedArrayBuffer(HEADER_BYTES + inBandBytes),
  };
}

/**
 * Opens one side of a channel over buffers made by `createCallChannelBuffers`.
 *
 * @example
 * const ch = openCallChannel(workerData.buffers, { overflow: workerData.port });
 */
export function openCallChannel(buffers: CallChannelBuffers, options: CallChannelOptions = {}): CallChannel {
  return {
    ctl: new Int32Array(buffers.ctl),
    inBandBytes: buffers.data.byteLength - HEADER_BYTES,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    maxSendBytes: Math.min(
      options.maxSendBytes ?? Number.POSITIVE_INFINITY,
      options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    ),
    data: new Uint8Array(buffers.data),
    text: Buffer.from(buffers.data),
    view: new DataView(buffers.data),
    overflow: options.overflow,
  };
}

/** The index in `ctl` of user word `i` (0-based). */
export function userWord(i: number): number {
  return FIRST_USER_WORD + i;
}

function tooLarge(bytes: number, max: number, where: string): TrustError<'CHANNEL_MESSAGE_TOO_LARGE'> {
  return new TrustError(
    'CHANNEL_MESSAGE_TOO_LARGE',
    `a ${bytes}-byte message exceeds the call channel's ${where} (${max} bytes)`,
    {
      hint: 'send less per call (fewer rows, smaller values), or raise the limit the channel was opened with',
    },
  );
}

const encoder = new TextEncoder();

function header(ch: CallChannel, codec: number, length: number): void {
  ch.data[0] = CALL_CHANNEL_VERSION;
  ch.data[1] = codec;
  ch.view.setUint32(4, length, true);
}

/** Writes one frame (or posts it over the port when it does not fit). Throws `CHANNEL_MESSAGE_TOO_LARGE`. */
function writeFrame(ch: CallChannel, value: unknown, codec: CallCodec): void {
  let bytes: Uint8Array;
  let code: number;
  if (codec === 'json') {
    const text = JSON.stringify(value) ?? 'null';
    // A text with more UTF-16 units than the buffer has bytes cannot fit; encodeInto says whether a shorter one did.
    if (text.length <= ch.inBandBytes) {
      const r = encoder.encodeInto(text, ch.data.subarray(HEADER_BYTES));
      if (r.read === text.length) {
        if (r.written > ch.maxSendBytes) throw tooLarge(r.written, ch.maxSendBytes, 'message limit');
        header(ch, CODEC.JSON, r.written);
        return;
      }
    }
    bytes = Buffer.from(text, 'utf8');
    code = CODEC.JSON;
  } else {
    bytes = serialize(value);
    code = CODEC.V8;
    if (bytes.length <= ch.inBandBytes && bytes.length <= ch.maxSendBytes) {
      ch.data.set(bytes, HEADER_BYTES);
      header(ch, code, bytes.length);
      return;
    }
  }
  if (bytes.length > ch.maxSendBytes) throw tooLarge(bytes.length, ch.maxSendBytes, 'message limit');
  if (!ch.overflow) throw tooLarge(bytes.length, ch.inBandBytes, 'buffer');
  // Queued on the port before the state word changes, so the reader finds it.
  ch.overflow.postMessage(bytes);
  header(ch, code | CODEC.VIA_PORT, bytes.length);
}

/** Reads the frame the other side wrote last. Throws `CHANNEL_FRAME_INVALID` or `CHANNEL_MESSAGE_TOO_LARGE`. */
function readFrame<T>(ch: CallChannel): T {
  const version = ch.data[0];
  const code = ch.data[1]!;
  const n = ch.view.getUint32(4, true);
  if (version !== CALL_CHANNEL_VERSION)
    throw new TrustError(
      'CHANNEL_FRAME_INVALID',
      `call channel frame version ${version}, expected ${CALL_CHANNEL_VERSION}`,
      {
        hint: 'both sides of a channel must run the same build; restart the worker',
      },
    );
  if (n > ch.maxMessageBytes) throw tooLarge(n, ch.maxMessageBytes, 'message limit');
  let bytes: Uint8Array;
  if (code & CODEC.VIA_PORT) {
    const m = ch.overflow ? receiveMessageOnPort(ch.overflow) : undefined;
    const got = m?.message as Uint8Array | undefined;
    if (!(got instanceof Uint8Array) || got.length !== n)
      throw new TrustError(
        'CHANNEL_FRAME_INVALID',
        'a message announced on the call channel is missing from its port',
        {
          hint: 'restart the worker',
        },
      );
    bytes = got;
  } else {
    if (n > ch.inBandBytes)
      throw new TrustError('CHANNEL_FRAME_INVALID', `call channel frame length ${n} exceeds the buffer`, {
        hint: 'restart the worker',
      });
    bytes = ch.data.subarray(HEADER_BYTES, HEADER_BYTES + n);
  }
  const codec = code & ~CODEC.VIA_PORT;
  if (codec === CODEC.JSON)
    return JSON.parse(
      code & CODEC.VIA_PORT
        ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')
        : ch.text.toString('utf8', HEADER_BYTES, HEADER_BYTES + n),
    ) as T;
  if (codec === CODEC.V8) return deserialize(bytes) as T;
  throw new TrustError('CHANNEL_FRAME_INVALID', `unknown call channel codec ${code}`, { hint: 'restart the worker' });
}

/** Writes a message and flips the state word, then wakes the other side. */
function post(ch: CallChannel, value: unknown, codec: CallCodec, state: number): void {
  writeFrame(ch, value, codec);
  Atomics.store(ch.ctl, 0, state);
  Atomics.notify(ch.ctl, 0);
}

/**
 * Caller side: posts one call. Throws `CHANNEL_MESSAGE_TOO_LARGE` (nothing is sent) or a clone
 * error for a value V8 cannot serialise.
 *
 * @example
 * postCall(ch, { name: 'run', args: [1] }, 'json');
 */
export function postCall(ch: CallChannel, value: unknown, codec: CallCodec): void {
  post(ch, value, codec, CALL_STATE.REQUEST);
}

/** Caller side: true once the answer to the call in flight is there. */
export function isReplyReady(ch: CallChannel): boolean {
  return Atomics.load(ch.ctl, 0) === CALL_STATE.REPLY;
}

/** Caller side: reads the answer (only after `isReplyReady`). */
export function readReply<T>(ch: CallChannel): T {
  return readFrame<T>(ch);
}

/** Worker side: answers the call in flight. Throws as `postCall` does; nothing is sent then. */
export function postReply(ch: CallChannel, value: unknown, codec: CallCodec): void {
  post(ch, value, codec, CALL_STATE.REPLY);
}

/** Reads the frame the other side wrote last (for the wait helpers in call-channel-wait.ts). */
export { readFrame as readCallFrame };
