import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { awaitReply, nextCall, waitForReply } from './call-channel-wait.js';
import {
  CALL_CHANNEL_VERSION,
  CALL_STATE,
  createCallChannelBuffers,
  isReplyReady,
  openCallChannel,
  postCall,
  postReply,
  readReply,
  userWord,
} from './call-channel.js';

/** Both ends of one channel in this thread: the protocol without the thread hop. */
function pair(inBandBytes: number, maxMessageBytes?: number, withPort = true) {
  const buffers = createCallChannelBuffers(inBandBytes, 2);
  const { port1, port2 } = new MessageChannel();
  const caller = openCallChannel(buffers, withPort ? { overflow: port1, maxMessageBytes } : { maxMessageBytes });
  const worker = openCallChannel(buffers, withPort ? { overflow: port2, maxMessageBytes } : { maxMessageBytes });
  return { caller, worker, close: () => port1.close() };
}

describe('call channel', () => {
  it.each([
    ['JSON', 'json', { name: 'f', args: ['a\u{1F600}\uD800', 1, true, null] }],
    ['structured clone', 'v8', { args: [1n, new Uint8Array([1, 2]), undefined, -0, Number.NaN, { nested: [1] }] }],
  ] as const)('round-trips a call and its answer exactly (%s), in the buffer', (_l, codec, value) => {
    const { caller, worker, close } = pair(1024);
    postCall(caller, value, codec);
    expect(Atomics.load(caller.ctl, 0)).toBe(CALL_STATE.REQUEST);
    expect(caller.data[0]).toBe(CALL_CHANNEL_VERSION);
    expect(isReplyReady(caller)).toBe(false);
    const got = nextCall<typeof value>(worker);
    expect(got).toEqual(value);
    if ('args' in got && codec === 'v8') expect(Object.is(got.args[3], -0)).toBe(true);
    postReply(worker, { ok: got }, codec);
    expect(isReplyReady(caller)).toBe(true);
    expect(readReply(caller)).toEqual({ ok: value });
    close();
  });

  it.each(['json', 'v8'] as const)('sends a %s message larger than the buffer over the port, same bytes', (codec) => {
    const { caller, worker, close } = pair(64);
    const big = { s: 'é'.repeat(500), b: codec === 'v8' ? new Uint8Array(300) : null };
    postCall(caller, big, codec);
    expect(caller.data[1]! & 0x80).toBe(0x80);
    expect(nextCall(worker)).toEqual(big);
    postReply(worker, 'small', codec);
    expect(readReply(caller)).toBe('small');
    close();
  });

  it('refuses a message larger than the buffer when the channel has no port, and sends nothing', () => {
    const { caller } = pair(32, undefined, false);
    expect(() => postCall(caller, { s: 'x'.repeat(64) }, 'json')).toThrowTrustError('CHANNEL_MESSAGE_TOO_LARGE');
    expect(() => postCall(caller, new Uint8Array(64), 'v8')).toThrowTrustError('CHANNEL_MESSAGE_TOO_LARGE');
    expect(Atomics.load(caller.ctl, 0)).toBe(CALL_STATE.IDLE);
    expect(() => postCall(caller, { f: () => 1 }, 'v8')).toThrow();
    postCall(caller, { s: 'ok' }, 'json');
    expect(Atomics.load(caller.ctl, 0)).toBe(CALL_STATE.REQUEST);
  });

  it('refuses a message over maxMessageBytes even with a port, in both codecs and in the buffer too', () => {
    const { caller, close } = pair(1024, 100);
    expect(() => postCall(caller, 'x'.repeat(200), 'json')).toThrowTrustError('CHANNEL_MESSAGE_TOO_LARGE');
    expect(() => postCall(caller, new Uint8Array(2000), 'v8')).toThrowTrustError('CHANNEL_MESSAGE_TOO_LARGE');
    expect(() => postCall(caller, 'x'.repeat(5000), 'json')).toThrowTrustError('CHANNEL_MESSAGE_TOO_LARGE');
    expect(Atomics.load(caller.ctl, 0)).toBe(CALL_STATE.IDLE);
    close();
  });

  it('rejects a frame of another version, an unknown codec and a length past the buffer', () => {
    const { caller, worker, close } = pair(64);
    postCall(caller, 1, 'json');
    worker.data[0] = CALL_CHANNEL_VERSION + 1;
    expect(() => nextCall(worker)).toThrowTrustError('CHANNEL_FRAME_INVALID');
    worker.data[0] = CALL_CHANNEL_VERSION;
    worker.data[1] = 9;
    expect(() => nextCall(worker)).toThrowTrustError('CHANNEL_FRAME_INVALID');
    worker.data[1] = 1;
    worker.view.setUint32(4, 65, true);
    expect(() => nextCall(worker)).toThrowTrustError('CHANNEL_FRAME_INVALID');
    worker.data[1] = 0x81; // announced on the port, but nothing was posted there
    worker.view.setUint32(4, 1, true);
    expect(() => nextCall(worker)).toThrowTrustError('CHANNEL_FRAME_INVALID');
    close();
  });

  it('caps what one side sends below what it accepts (maxSendBytes)', () => {
    const buffers = createCallChannelBuffers(64);
    const { port1, port2 } = new MessageChannel();
    const caller = openCallChannel(buffers, { overflow: port1, maxSendBytes: 16 });
    const worker = openCallChannel(buffers, { overflow: port2 });
    expect(() => postCall(caller, 'x'.repeat(20), 'json')).toThrowTrustError('CHANNEL_MESSAGE_TOO_LARGE');
    postCall(caller, 'x'.repeat(10), 'json');
    expect(nextCall(worker)).toBe('x'.repeat(10));
    postReply(worker, 'y'.repeat(500), 'json');
    expect(readReply(caller)).toBe('y'.repeat(500));
    port1.close();
  });

  it('keeps user words apart from the state word', () => {
    const { caller, worker, close } = pair(64);
    Atomics.add(caller.ctl, userWord(0), 3);
    Atomics.add(worker.ctl, userWord(1), 1);
    postCall(caller, 1, 'json');
    expect([Atomics.load(worker.ctl, userWord(0)), Atomics.load(worker.ctl, userWord(1))]).toEqual([3, 1]);
    expect(Atomics.load(worker.ctl, 0)).toBe(CALL_STATE.REQUEST);
    close();
  });

  it('waitForReply is false for an unanswered call and true once answered; awaitReply stops when told', async () => {
    const { caller, worker, close } = pair(64);
    postCall(caller, 1, 'json');
    expect(waitForReply(caller, { syncWaitMs: 1, spinMicros: 100 })).toBe(false);
    expect(waitForReply(caller, { syncWaitMs: 0 })).toBe(false);
    let waiting = true;
    const abandoned = awaitReply(caller, () => waiting);
    waiting = false;
    expect(await abandoned).toBe(false);
    const answered = awaitReply(caller, () => true);
    nextCall(worker);
    postReply(worker, 2, 'json');
    expect(await answered).toBe(true);
    expect(waitForReply(caller, { syncWaitMs: 1000 })).toBe(true);
    expect(readReply(caller)).toBe(2);
    close();
  });
});
