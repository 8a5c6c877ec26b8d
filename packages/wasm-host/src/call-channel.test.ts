import { describe, expect, it } from 'vitest';
import {
  CALL_STATE,
  createCallBuffers,
  isPlainScalar,
  openCallChannel,
  postRequest,
  readPayload,
  writePayload,
} from './call-channel.js';

describe('call channel encoding', () => {
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
    ['plain scalars as JSON', ['a\u{1F600}\uD800', 1, true, null]],
    [
      'bigints, typed arrays, undefined and -0 through structured clone',
      [1n, new Uint8Array([1, 2]), undefined, -0, { nested: [1] }],
    ],
  ])('round-trips %s exactly', (_label, args) => {
    const ch = openCallChannel(createCallBuffers(1024));
    expect(postRequest(ch, 'f', args)).toBe(true);
    expect(Atomics.load(ch.ctl, 0)).toBe(CALL_STATE.REQUEST);
    const back = readPayload<{ name: string; args: unknown[] }>(ch);
    expect(back.name).toBe('f');
    expect(back.args).toEqual(args);
    expect(Object.is(back.args[3], args[3])).toBe(true);
  });

  it('refuses a payload larger than the buffer in either encoding, and throws for uncloneable values', () => {
    const ch = openCallChannel(createCallBuffers(32));
    expect(writePayload(ch, { s: 'x'.repeat(64) }, true)).toBe(false);
    expect(writePayload(ch, { s: new Uint8Array(64) }, false)).toBe(false);
    expect(() => writePayload(ch, { f: () => 1 }, false)).toThrow();
    expect(writePayload(ch, { s: 'ok' }, true)).toBe(true);
    expect(readPayload(ch)).toEqual({ s: 'ok' });
  });
});
