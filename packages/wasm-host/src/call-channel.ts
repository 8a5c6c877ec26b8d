import type { MessagePort } from 'node:worker_threads';
import {
  type CallChannel,
  createCallChannelBuffers,
  nextCall,
  openCallChannel,
  postCall,
  postReply,
} from '@trust/core/node';

/**
 * A plugin's calls over core's shared-memory call channel (`@trust/core/node`): the host posts
 * `{ name, args }` and the worker (parked in `Atomics.wait`) answers with the outcome in the same
 * buffer; an outcome larger than the buffer crosses over the channel's port, still without an
 * event-loop turn. Only one call is in flight per plugin; the host queues the rest.
 *
 * Bounds: a request is at most `maxCallBytes` (it always fits the buffer, which is that large);
 * an answer at most `replyBytesBound` (everything the worker could hold: the guest's memory, the
 * worker's heap and the kept output). Over it the call answers a trap instead.
 *
 * Codec: payloads of plain scalars (the common case: numbers, strings, booleans, null) go as
 * JSON text, several times cheaper than `v8.serialize` for small values; everything else
 * (bigints, typed arrays, nested data, guest output) uses the structured-clone format.
 */
export interface PluginChannelBuffers {
  readonly buffers: ReturnType<typeof createCallChannelBuffers>;
  readonly maxCallBytes: number;
  readonly maxReplyBytes: number;
}

/** True for values JSON carries exactly: null, booleans, strings, finite numbers other than -0. */
export function isPlainScalar(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  return typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0);
}

/** The largest answer a plugin's worker may send: what it could hold at most. */
export function replyBytesBound(limits: { maxMemoryBytes: number; maxHeapMb: number; maxOutputBytes: number }): number {
  return limits.maxMemoryBytes + limits.maxHeapMb * 1024 * 1024 + limits.maxOutputBytes;
}

export function createPluginChannelBuffers(maxCallBytes: number, maxReplyBytes: number): PluginChannelBuffers {
  return { buffers: createCallChannelBuffers(maxCallBytes), maxCallBytes, maxReplyBytes };
}

/**
 * Opens one side; `port` is this side's end of the channel's overflow port pair. The host sends
 * requests of at most `maxCallBytes`; the worker answers of at most `maxReplyBytes`.
 */
export function openPluginChannel(b: PluginChannelBuffers, side: 'host' | 'worker', port: MessagePort): CallChannel {
  return openCallChannel(b.buffers, {
    overflow: port,
    maxMessageBytes: Math.max(b.maxReplyBytes, b.maxCallBytes),
    maxSendBytes: side === 'host' ? b.maxCallBytes : b.maxReplyBytes,
  });
}

/**
 * Host side: posts one call. Throws `CHANNEL_MESSAGE_TOO_LARGE` over `maxCallBytes`, or a clone
 * error for arguments V8 cannot serialise; nothing is sent then.
 */
export function postRequest(ch: CallChannel, name: string, args: readonly unknown[]): void {
  postCall(ch, { name, args }, args.every(isPlainScalar) ? 'json' : 'v8');
}

/**
 * Worker side: serves calls forever, blocked in `Atomics.wait` slices in between (so
 * `terminate()` always lands); never needs its event loop for a call. An answer that cannot be
 * sent (not cloneable, over the bound) is replaced by `fallback(error)`.
 */
export function serveCalls<Req, Reply>(
  ch: CallChannel,
  handle: (request: Req) => Reply,
  isPlain: (reply: Reply) => boolean,
  fallback: (error: unknown) => Reply,
): never {
  for (;;) {
    const reply = handle(nextCall<Req>(ch));
    try {
      postReply(ch, reply, isPlain(reply) ? 'json' : 'v8');
    } catch (e) {
      postReply(ch, fallback(e), 'v8');
    }
  }
}
