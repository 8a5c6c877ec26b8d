import { describe, expect, it } from 'vitest';
import { escapeTerminal } from './terminal-text.js';

describe('escapeTerminal', () => {
  it.each([
    ['plain text', 'plain text'],
    ['red \u001b[31mtext\u001b[0m', 'red text'],
    ['clear \u001b[2J\u001b[H screen', 'clear  screen'],
    ['title \u001b]0;pwned\u0007 set', 'title  set'],
    ['link \u001b]8;;http://evil\u001b\\x\u001b]8;;\u001b\\', 'link x'],
    ['bell \u0007', 'bell \\x07'],
    ['c1 csi \u009b31m', 'c1 csi '],
    ['nul \u0000 del \u007f', 'nul \\x00 del \\x7f'],
    ['cr\rover', 'cr\\x0dover'],
    ['two\nlines', 'two\\x0alines'],
    ['tab\there', 'tab\\x09here'],
    ['bidi \u202eevil\u202c', 'bidi \\u202eevil\\u202c'],
    ['isolate \u2066x\u2069', 'isolate \\u2066x\\u2069'],
    ['unicode ok: ünïcødé ✓', 'unicode ok: ünïcødé ✓'],
  ])('%j → %j', (input, expected) => {
    expect(escapeTerminal(input)).toBe(expected);
  });

  it('keeps newlines and tabs in multiline mode but still escapes other controls', () => {
    expect(escapeTerminal('a\nb\tc\u001b[1m\u0008', { multiline: true })).toBe('a\nb\tc\\x08');
  });

  it('removes an escape sequence split across a fake newline attempt', () => {
    expect(escapeTerminal('ok\u001b[1A\u001b[2Kdone')).toBe('okdone');
  });
});
