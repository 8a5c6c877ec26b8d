// Untrusted text (URLs, file names, agent output, error messages from peers) must not drive the
// terminal: an ANSI sequence can move the cursor, rewrite earlier lines, change the window title
// or hide text, and a bidi override can make text read differently from what it is.

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), DCS/SOS/PM/APC (ESC P|X|^|_ ... ESC \),
// the 8-bit forms of CSI (0x9b) and OSC (0x9d), and two-byte ESC sequences.
const ANSI_SEQUENCE = new RegExp(
  [
    /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]/.source,
    /(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?/.source,
    /\u001b[PX^_][^\u001b\u009c]*(?:\u001b\\|\u009c)?/.source,
    /\u001b[@-Z\\-_]/.source,
  ].join('|'),
  'g',
);
// Every remaining C0 control, DEL and C1 control, and the bidi controls (Trojan Source).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_MULTILINE_OFF = /[\n\t]/g;

function visible(ch: string): string {
  const code = ch.codePointAt(0) as number;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Makes untrusted text safe to print on a terminal. Complete ANSI escape sequences are removed;
 * any other control character, DEL, C1 control or bidi control is shown as a visible escape such
 * as `\x07` or `\u202e`. Newlines and tabs are kept only when `multiline` is true; otherwise
 * they are shown as `\x0a` / `\x09`, so one untrusted value can never fake a second line.
 *
 * @example
 * escapeTerminal('evil\u001b[2Jname\n'); // 'evilname\\x0a'
 */
export function escapeTerminal(text: string, options: { multiline?: boolean } = {}): string {
  let out = String(text).replace(ANSI_SEQUENCE, '').replace(CONTROL, visible);
  if (!options.multiline) out = out.replace(CONTROL_MULTILINE_OFF, visible);
  return out;
}
