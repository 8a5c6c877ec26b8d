import { describe, expect, it } from 'vitest';
import { CODEC_JSON, CODEC_V8, createFrameReader, encodeFrame, needsStructuredClone } from './sql-wire.js';

const roundTrip = (m: unknown, binary: boolean, split = 0): unknown[] => {
  const out: unknown[] = [];
  const read = createFrameReader((x) => out.push(x));
  const f = Buffer.concat([encodeFrame(m, binary), encodeFrame({ next: true }, false)]);
  if (split > 0) for (let i = 0; i < f.length; i += split) read(f.subarray(i, i + split));
  else read(f);
  return out;
};

describe('SQL channel frames', () => {
  it.each([
    ['text', 'abc', false],
    ['number', 1.5, false],
    ['null', null, false],
    ['blob', new Uint8Array([1, 2]), true],
    ['NaN', Number.NaN, true],
    ['Infinity', Number.POSITIVE_INFINITY, true],
    ['-0', -0, true],
    ['bigint', 1n, true],
  ] as const)('%s needs the structured-clone codec: %s', (_n, v, expected) => {
    expect(needsStructuredClone(v)).toBe(expected);
  });

  it('picks the codec the sender asks for', () => {
    expect(encodeFrame({ a: 1 }, false)[4]).toBe(CODEC_JSON);
    expect(encodeFrame({ a: 1 }, true)[4]).toBe(CODEC_V8);
  });

  it.each([0, 1, 3, 7])('reassembles frames split into %i-byte chunks, in order', (split) => {
    const rows = [{ id: 1, name: 'é\u{1F600}\uD800', b: null }];
    expect(roundTrip({ v: 2, id: 1, kind: 'ok', value: { rows } }, false, split)).toEqual([
      { v: 2, id: 1, kind: 'ok', value: { rows } },
      { next: true },
    ]);
    const bin = { rows: [{ b: new Uint8Array([0, 255]), x: Number.NEGATIVE_INFINITY, z: -0 }] };
    const [got] = roundTrip(bin, true, split) as [{ rows: Array<{ b: Uint8Array; x: number; z: number }> }];
    expect([...got.rows[0]!.b]).toEqual([0, 255]);
    expect(got.rows[0]!.x).toBe(Number.NEGATIVE_INFINITY);
    expect(Object.is(got.rows[0]!.z, -0)).toBe(true);
  });

  it('refuses a malformed frame with SQL_HOST_FAILED', () => {
    const read = createFrameReader(() => undefined);
    const bad = Buffer.from([2, 0, 0, 0, 9, 1]);
    expect(() => read(bad)).toThrowTrustError('SQL_HOST_FAILED');
    expect(() => createFrameReader(() => undefined)(Buffer.from([0, 0, 0, 0]))).toThrowTrustError('SQL_HOST_FAILED');
  });
});
