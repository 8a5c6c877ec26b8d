import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_JSON_DEPTH, checkJsonText, checkJsonValue, parseJsonWithLimits } from './json-limits.js';

const nest = (n: number, open = '[', close = ']') => open.repeat(n) + close.repeat(n);
const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

describe('checkJsonText', () => {
  it.each([
    ['a scalar', '1', undefined],
    ['an empty array (depth 1)', '[]', undefined],
    ['arrays at the cap', nest(64), undefined],
    ['arrays one over the cap', nest(65), 'INPUT_TOO_DEEP'],
    ['objects at the cap', objects(64), undefined],
    ['objects one over the cap', objects(65), 'INPUT_TOO_DEEP'],
    ['mixed nesting one over the cap', '[{"a":'.repeat(32) + '[1]' + '}]'.repeat(32), 'INPUT_TOO_DEEP'],
    ['brackets inside a string do not count', `["${'['.repeat(500)}"]`, undefined],
    ['an escaped quote keeps the string open', `["\\"${'{'.repeat(500)}"]`, undefined],
    ['an escaped backslash closes the string', `["\\\\"${'['.repeat(65)}`, 'INPUT_TOO_DEEP'],
    ['siblings do not add depth', `[${Array.from({ length: 1000 }, () => '[]').join(',')}]`, undefined],
    ['an unterminated deep prefix is refused before parsing', '['.repeat(100_000), 'INPUT_TOO_DEEP'],
  ])('%s', (_name, text, code) => {
    const d = checkJsonText(text);
    if (code === undefined) expect(d).toEqual({ allow: true, rule: 'json-limits' });
    else expect(d).toMatchObject({ allow: false, code, rule: 'json-depth' });
  });

  it('the default cap is 64 and a custom cap is honoured', () => {
    expect(DEFAULT_MAX_JSON_DEPTH).toBe(64);
    expect(checkJsonText(nest(3), { maxDepth: 3 }).allow).toBe(true);
    expect(checkJsonText(nest(4), { maxDepth: 3 })).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('INPUT_TOO_DEEP'),
    });
  });

  it.each([
    ['ascii at the limit', '"abcd"', 6, true],
    ['ascii one byte over', '"abcde"', 6, false],
    ['two-byte characters count twice', '"éé"', 6, true],
    ['three-byte characters count three times', '"€€"', 7, false],
    ['a surrogate pair counts four bytes', '"😀"', 6, true],
    ['a surrogate pair one over', '"😀"', 5, false],
  ])('size: %s', (_name, text, maxBytes, ok) => {
    const d = checkJsonText(text, { maxBytes });
    expect(d.allow).toBe(ok);
    if (!ok) expect(d).toMatchObject({ code: expect.toBeTrustCode('INPUT_TOO_LARGE'), rule: 'json-size' });
    expect(new TextEncoder().encode(text).length <= maxBytes).toBe(ok);
  });
});

describe('checkJsonValue', () => {
  it.each([
    ['a scalar', 'x', true],
    ['arrays at the cap', JSON.parse(nest(64)) as unknown, true],
    ['arrays one over the cap', JSON.parse(nest(65)) as unknown, false],
    ['objects at the cap', JSON.parse(objects(64)) as unknown, true],
    ['objects one over the cap', JSON.parse(objects(65)) as unknown, false],
    ['a value far deeper than the call stack', JSON.parse(nest(200_000)) as unknown, false],
  ])('%s', (_name, value, ok) => {
    const d = checkJsonValue(value);
    expect(d.allow).toBe(ok);
    if (!ok) expect(d).toHaveTrustCode('INPUT_TOO_DEEP');
  });

  it('refuses a cyclic value as too deep instead of looping', () => {
    const a: unknown[] = [];
    a.push(a);
    expect(checkJsonValue(a)).toMatchObject({ allow: false, code: expect.toBeTrustCode('INPUT_TOO_DEEP') });
  });

  it('caps the number of values visited', () => {
    const shared = [1, 2, 3];
    expect(checkJsonValue([shared, shared], { maxNodes: 8 })).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('INPUT_TOO_LARGE'),
    });
    expect(checkJsonValue([shared, shared], { maxNodes: 9 }).allow).toBe(true);
  });
});

describe('parseJsonWithLimits', () => {
  it('parses what passes, refuses the rest with a coded TrustError', () => {
    expect(parseJsonWithLimits('{"a":[1]}')).toEqual({ a: [1] });
    expect(() => parseJsonWithLimits(nest(65))).toThrowError(
      expect.objectContaining({
        code: expect.toBeTrustCode('INPUT_TOO_DEEP'),
        decision: expect.objectContaining({ allow: false }),
      }),
    );
    expect(() => parseJsonWithLimits('{"a":', {})).toThrowTrustError('INPUT_JSON_INVALID');
    expect(() => parseJsonWithLimits('"abc"', { maxBytes: 2 })).toThrowTrustError('INPUT_TOO_LARGE');
  });
});
