/**
 * Makes untrusted text safe to show in a terminal or an approval prompt: C0/C1 control characters
 * (including ESC, so no ANSI sequences), DEL, bidi overrides and zero-width characters become
 * visible `\u{…}` escapes; newlines and tabs are kept unless `singleLine`. Long text is cut.
 *
 * @example
 * escapeForTerminal('ok\u001b[2Jgone'); // 'ok\\u{1b}[2Jgone'
 */
export function escapeForTerminal(text: unknown, options: { maxLength?: number; singleLine?: boolean } = {}): string {
  const s = typeof text === 'string' ? text : (JSON.stringify(text) ?? String(text));
  const max = options.maxLength ?? 2000;
  const cut = s.length > max ? `${s.slice(0, max)}… (${s.length - max} more chars)` : s;
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/gu, (c) => {
    if (!options.singleLine && (c === '\n' || c === '\t')) return c;
    return `\\u{${c.codePointAt(0)!.toString(16)}}`;
  });
}
