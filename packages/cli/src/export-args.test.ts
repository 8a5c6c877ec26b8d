import { describe, expect, it } from 'vitest';
import { convertExportArgs, findExportWit, parseWitParams } from './export-args.js';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return 'no error';
  } catch (e) {
    return (e as { code: string }).code;
  }
};

describe('export arguments', () => {
  it.each([
    [
      'add: func(a: u32, b: u32) -> u32',
      [
        { name: 'a', type: 'u32' },
        { name: 'b', type: 'u32' },
      ],
    ],
    ['hello: func() -> string', []],
    [
      'pairs: func(xs: list<tuple<u32, string>>, flag: bool)',
      [
        { name: 'xs', type: 'list<tuple<u32, string>>' },
        { name: 'flag', type: 'bool' },
      ],
    ],
    ['acme:greeter/api#greet: func(name: string) -> string', [{ name: 'name', type: 'string' }]],
    ['point: record { x: u32 }', undefined],
  ])('parseWitParams(%j)', (wit, params) => {
    expect(parseWitParams(wit)).toEqual(params);
  });

  it('finds an export by its WIT name, camelCase or iface.fn', () => {
    const items = { 'env-count': 'env-count: func() -> u32', 'acme:x/api#go': 'acme:x/api#go: func()' };
    expect(findExportWit(items, 'envCount')).toBe(items['env-count']);
    expect(findExportWit(items, 'acme:x/api.go')).toBe(items['acme:x/api#go']);
    expect(findExportWit(items, 'nope')).toBeUndefined();
  });

  const p = (type: string) => [{ name: 'v', type }];
  it.each([
    ['u32', '7', 7],
    ['s8', '-128', -128],
    ['u64', '18446744073709551615', 18446744073709551615n],
    ['f64', '1.5', 1.5],
    ['bool', 'true', true],
    ['string', 'plain words', 'plain words'],
    ['string', '"quoted"', 'quoted'],
    ['string', '42', '42'],
    ['char', 'x', 'x'],
    ['list<u32>', '[1,2]', [1, 2]],
  ] as const)('%s accepts %j', (type, word, value) => {
    expect(convertExportArgs('f', p(type), [word])).toEqual([value]);
  });

  it.each([
    ['u32', 'a'],
    ['u32', '-1'],
    ['u32', '4294967296'],
    ['u8', '1.5'],
    ['f32', 'NaN'],
    ['bool', 'yes'],
    ['char', 'xy'],
    ['list<u32>', '[1,'],
  ] as const)('%s refuses %j with a usage error', (type, word) => {
    expect(codeOf(() => convertExportArgs('f', p(type), [word]))).toBeTrustCode('CLI_USAGE_INVALID_ARGUMENT');
  });

  it('refuses a wrong argument count, naming the signature', () => {
    const params = parseWitParams('add: func(a: u32, b: u32) -> u32') ?? [];
    expect(() => convertExportArgs('add', params, ['1'])).toThrow('add takes 2 arguments (a: u32, b: u32), got 1');
    expect(codeOf(() => convertExportArgs('hello', [], ['x']))).toBeTrustCode('CLI_USAGE_INVALID_ARGUMENT');
  });
});
