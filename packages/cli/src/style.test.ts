import { describe, expect, it } from 'vitest';
import { createStyle, shouldColor } from './style.js';

describe('shouldColor', () => {
  it.each([
    [{ env: {}, isTTY: true }, true],
    [{ env: {}, isTTY: false }, false],
    [{ env: { NO_COLOR: '1' }, isTTY: true }, false],
    [{ env: { NO_COLOR: '' }, isTTY: true }, true],
    [{ env: { TERM: 'dumb' }, isTTY: true }, false],
    [{ env: { FORCE_COLOR: '1' }, isTTY: false }, true],
    [{ env: { FORCE_COLOR: '0' }, isTTY: false }, false],
    [{ env: { FORCE_COLOR: '1', NO_COLOR: '1' }, isTTY: true }, false],
    [{ env: {}, isTTY: true, flag: false }, false],
  ])('%j → %s', (input, expected) => {
    expect(shouldColor(input)).toBe(expected);
  });
});

describe('createStyle', () => {
  it('wraps text in SGR codes only when enabled', () => {
    expect(createStyle(true).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(createStyle(false).red('x')).toBe('x');
    expect(createStyle(false).bold('y')).toBe('y');
  });
});
