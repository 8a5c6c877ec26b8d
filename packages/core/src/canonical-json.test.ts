import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { TrustError } from './error.js';

describe('canonicalJson (RFC 8785)', () => {
  it.each([
    [null, 'null'],
    [true, 'true'],
    [0, '0'],
    [-0, '0'],
    [1, '1'],
    [-1.5, '-1.5'],
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [0.000001, '0.000001'],
    // parsed from text: as literals these would be flagged for losing precision, which is the point here
    [Number('333333333.33333329'), '333333333.3333333'],
    [Number('4.5e-324'), '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [9007199254740992, '9007199254740992'],
    ['', '""'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ['\u0000\u001f\b\t\n\f\r', '"\\u0000\\u001f\\b\\t\\n\\f\\r"'],
    ['€$\u000F\u000aA\'\u0042\u0022\u005c\\"/', '"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"'],
    ['😀 é', '"😀 é"'],
    [[], '[]'],
    [{}, '{}'],
    [[1, 'a', null, [true]], '[1,"a",null,[true]]'],
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ a: undefined, b: 1 }, '{"b":1}'],
    [[undefined], '[null]'],
    [{ z: { y: 1, x: [{ b: 0, a: 0 }] } }, '{"z":{"x":[{"a":0,"b":0}],"y":1}}'],
    [{ '10': 1, '9': 2, a: 3, A: 4, _: 5 }, '{"10":1,"9":2,"A":4,"_":5,"a":3}'],
    [new Date('2026-01-02T03:04:05.000Z'), '"2026-01-02T03:04:05.000Z"'],
  ])('%j -> %s', (value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3 example)', () => {
    const value = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'];
    const entry = (k: string): string => `${JSON.stringify(k)}:${JSON.stringify(value[k as keyof typeof value])}`;
    const expected = `{${order.map(entry).join(',')}}`;
    expect(canonicalJson(value)).toBe(expected);
  });

  it('matches the RFC 8785 §3.2.2 sample', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it.each([
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['bigint', 1n],
    ['lone surrogate', '\ud800x'],
    ['lone surrogate key', { '\udc00': 1 }],
    ['undefined', undefined],
  ])('rejects %s', (_label, value) => {
    expect(() => canonicalJson(value)).toThrow(TrustError);
  });

  it('rejects cycles but allows shared references', () => {
    const shared = { a: 1 };
    expect(canonicalJson({ x: shared, y: shared })).toBe('{"x":{"a":1},"y":{"a":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });

  it('names where the bad value sits', () => {
    expect(() => canonicalJson({ a: [1, { b: NaN }] })).toThrow('cannot canonicalise the number NaN at .a[1].b');
    expect(() => canonicalJson({ k: { '\udc00': 1 } })).toThrow('lone surrogate at .k');
    expect(() => canonicalJson(['ok', '\ud800'])).toThrow('lone surrogate at [1]');
    expect(() => canonicalJson('\ud800')).toThrow('lone surrogate at (root)');
    expect(canonicalJson({ s: 'a\ud83d\ude00b', t: [1, undefined, 'x'] })).toBe(
      '{"s":"a\ud83d\ude00b","t":[1,null,"x"]}',
    );
  });
});
