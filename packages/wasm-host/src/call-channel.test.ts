import { MessageChannel } from 'node:worker_threads';
import { nextCall, postReply, readReply } from '@trust/core/node';
import { describe, expect, it } from 'vitest';
import {
  createPluginChannelBuffers,
  isPlainScalar,
  openPluginChannel,
  postRequest,
  replyBytesBound,
} from './call-channel.js';

/** Host and worker ends of one plugin channel in this thread. */
function pair(maxCallBytes: number, maxReplyBytes: number) {
  const b = createPluginChannelBuffers(maxCallBytes, maxReplyBytes);
  const { port1, port2 } = new MessageChannel();
  return {
    host: openPluginChannel(b, 'host', port1),
    worker: openPluginChannel(b, 'worker', port2),
    close: () => port1.close(),
  };
}

describe('plugin call channel', () => {
  it.each([
    [null, true],
    ['héllo', true],
    [true, true],
    [42, true],
    [-1.5, true],
    [-0, false],
    [Number.NaN, false],
    [Number.POSITIVE_INFINITY, false],
    [undefined, false],
    [1n, false],
    [new Uint8Array(1), false],
    [[1], false],
    [{ a: 1 }, false],
  ])('isPlainScalar(%o) is %s', (value, plain) => {
    expect(isPlainScalar(value)).toBe(plain);
  });

  it.each([
    ['plain scalars as JSON', ['a\u{1F600}\uD800', 1, true, null], 1],
    [
      'bigints, typed arrays, undefined and -0 through structured clone',
      [1n, new Uint8Array([1, 2]), undefined, -0, { nested: [1] }],
      2,
    ],
  ])('round-trips %s exactly', (_label, args, codec) => {
    const { host, worker, close } = pair(1024, 1024);
    postRequest(host, 'f', args);
    expect(host.data[1]).toBe(codec);
    const back = nextCall<{ name: string; args: unknown[] }>(worker);
    expect(back.name).toBe('f');
    expect(back.args).toEqual(args);
    expect(Object.is(back.args[3], args[3])).toBe(true);
    close();
  });

  it('refuses arguments over maxCallBytes in either encoding and throws for uncloneable ones', () => {
    const { host, close } = pair(32, 1 << 20);
    expect(() => postRequest(host, 'f', ['x'.repeat(64)])).toThrowTrustError('CHANNEL_MESSAGE_TOO_LARGE');
    expect(() => postRequest(host, 'f', [new Uint8Array(64)])).toThrowTrustError('CHANNEL_MESSAGE_TOO_LARGE');
    expect(() => postRequest(host, 'f', [() => 1])).toThrow();
    close();
  });

  it('carries an answer larger than the buffer over the port, up to the reply bound', () => {
    const { host, worker, close } = pair(32, 4096);
    postRequest(host, 'f', []);
    nextCall(worker);
    const output = new Uint8Array(2000).fill(7);
    postReply(worker, { ok: true, value: 1, output: [['stdout', output]] }, 'v8');
    expect(readReply(host)).toEqual({ ok: true, value: 1, output: [['stdout', output]] });
    expect(() => postReply(worker, { output: new Uint8Array(5000) }, 'v8')).toThrowTrustError(
      'CHANNEL_MESSAGE_TOO_LARGE',
    );
    close();
  });

  it('bounds an answer by what the worker can hold', () => {
    expect(replyBytesBound({ maxMemoryBytes: 1024, maxHeapMb: 1, maxOutputBytes: 10 })).toBe(1024 + 1048576 + 10);
  });
});
