import { describe, expect, it } from 'vitest';
import { escapeForTerminal } from './escape.js';
import { validateJsonSchema } from './json-schema.js';

describe('escapeForTerminal', () => {
  it.each([
    ['plain', 'plain'],
    ['a\u001b[2Jb', 'a\\u{1b}[2Jb'],
    ['bell\u0007', 'bell\\u{7}'],
    ['rtl\u202eoverride', 'rtl\\u{202e}override'],
    ['zero\u200bwidth', 'zero\\u{200b}width'],
    ['c1\u009bcsi', 'c1\\u{9b}csi'],
    ['line\nbreak\ttab', 'line\nbreak\ttab'],
  ])('%j -> %j', (input, out) => expect(escapeForTerminal(input)).toBe(out));

  it('single-line mode escapes newlines, and long text is cut', () => {
    expect(escapeForTerminal('a\nb', { singleLine: true })).toBe('a\\u{a}b');
    expect(escapeForTerminal('x'.repeat(50), { maxLength: 10 })).toBe(`${'x'.repeat(10)}… (40 more chars)`);
    expect(escapeForTerminal({ k: 'v' })).toBe('{"k":"v"}');
  });
});

describe('validateJsonSchema', () => {
  const schema = {
    type: 'object',
    properties: {
      n: { type: 'integer', minimum: 1 },
      s: { type: 'string', enum: ['a', 'b'] },
      l: { type: 'array', items: { type: 'string' } },
    },
    required: ['n'],
    additionalProperties: false,
  };
  it.each([
    [{ n: 1 }, 0],
    [{ n: 1, s: 'a', l: ['x'] }, 0],
    [{}, 1],
    [{ n: 0 }, 1],
    [{ n: 1.5 }, 1],
    [{ n: 1, s: 'c' }, 1],
    [{ n: 1, l: [1] }, 1],
    [{ n: 1, extra: true }, 1],
    [[], 1],
    [null, 1],
  ])('%j has %i problem(s)', (value, count) => expect(validateJsonSchema(schema, value)).toHaveLength(count));
});
