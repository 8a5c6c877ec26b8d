/** Backslash escapes of printf formats and `%b` arguments. */
export function printfEscapes(s: string): { text: string; stop: boolean } {
  let stop = false;
  const text = s.replace(/\\(0[0-7]{0,3}|[0-7]{1,3}|x[0-9a-fA-F]{1,2}|c|.)/gs, (m, e: string) => {
    if (stop) return '';
    const map: Record<string, string> = {
      n: '\n',
      t: '\t',
      r: '\r',
      a: '\x07',
      b: '\b',
      f: '\f',
      v: '\v',
      e: '\x1b',
      '\\': '\\',
      '"': '"',
      "'": "'",
    };
    if (e === 'c') {
      stop = true;
      return '';
    }
    if (e in map) return map[e]!;
    if (/^x/.test(e)) return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8) & 255);
    return m;
  });
  return { text, stop };
}

const INT = /^\s*[-+]?(0x[0-9a-fA-F]+|[0-9]+)\s*$/;

/**
 * printf(1) formatting: flags `-0+ #`, width and precision (also `*`), conversions d i u o x X
 * c s b f F e E g G %. The format is reused while arguments remain (as the shell's printf does).
 * `error` names the first argument that was not a number.
 */
export function formatPrintf(format: string, args: readonly string[], reuse = false): { text: string; error?: string } {
  let out = '';
  let error: string | undefined;
  let k = 0;
  const next = () => args[k++];
  const toNum = (a: string | undefined, integer: boolean): number => {
    if (a === undefined || a === '') return 0;
    if (/^['"]./.test(a)) return a.codePointAt(1)!;
    if (integer ? INT.test(a) : /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(a) || INT.test(a))
      return integer ? Math.trunc(Number(a.trim())) : Number(a.trim());
    error ??= a;
    const lead = /^\s*[-+]?\d+/.exec(a);
    return lead ? Number(lead[0]) : 0;
  };
  for (;;) {
    const start = k;
    let stop = false;
    for (let i = 0; i < format.length && !stop; i++) {
      const c = format[i]!;
      if (c === '\\') {
        const m = /^\\(0[0-7]{0,3}|[0-7]{1,3}|x[0-9a-fA-F]{1,2}|.)/s.exec(format.slice(i))!;
        out += printfEscapes(m[0]).text;
        i += m[0].length - 1;
        continue;
      }
      if (c !== '%') {
        out += c;
        continue;
      }
      const m = /^%([-+ 0#]*)(\*|[0-9]*)(?:\.(\*|[0-9]*))?([diouxXcsbfFeEgG%])/.exec(format.slice(i));
      if (!m) {
        out += c;
        continue;
      }
      i += m[0].length - 1;
      const [, flags = '', w = '', p, conv = ''] = m;
      if (conv === '%') {
        out += '%';
        continue;
      }
      const width = w === '*' ? toNum(next(), true) : w ? Number(w) : 0;
      const prec = p === undefined ? undefined : p === '*' ? toNum(next(), true) : Number(p || 0);
      const a = next();
      let v: string;
      if (conv === 's') v = prec === undefined ? (a ?? '') : (a ?? '').slice(0, prec);
      else if (conv === 'b') {
        const r = printfEscapes(a ?? '');
        v = r.text;
        if (r.stop) stop = true;
      } else if (conv === 'c') v = (a ?? '').slice(0, 1);
      else if ('diouxX'.includes(conv)) {
        const n = toNum(a, true);
        const abs = Math.abs(n);
        v =
          conv === 'o'
            ? abs.toString(8)
            : conv === 'x'
              ? abs.toString(16)
              : conv === 'X'
                ? abs.toString(16).toUpperCase()
                : String(abs);
        if (prec !== undefined) v = v.padStart(prec, '0');
        if (flags.includes('#') && abs !== 0 && (conv === 'x' || conv === 'X')) v = (conv === 'x' ? '0x' : '0X') + v;
        v = (n < 0 ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '') + v;
      } else {
        const n = toNum(a, false);
        const pr = prec ?? 6;
        v =
          conv === 'f' || conv === 'F'
            ? Math.abs(n).toFixed(pr)
            : conv === 'e' || conv === 'E'
              ? expo(Math.abs(n), pr)
              : gfmt(Math.abs(n), pr, flags.includes('#'));
        if (conv === 'E' || conv === 'G') v = v.toUpperCase();
        v = (n < 0 || Object.is(n, -0) ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '') + v;
      }
      if (v.length < width) {
        if (flags.includes('-')) v = v.padEnd(width);
        else if (
          flags.includes('0') &&
          conv !== 's' &&
          conv !== 'c' &&
          conv !== 'b' &&
          (prec === undefined || !'diouxX'.includes(conv))
        ) {
          const sign = /^[-+ ]/.test(v) ? v[0]! : '';
          v = sign + v.slice(sign.length).padStart(width - sign.length, '0');
        } else v = v.padStart(width);
      }
      out += v;
    }
    if (stop || !reuse || k === start || k >= args.length) break;
  }
  return error === undefined ? { text: out } : { text: out, error };
}

function expo(n: number, p: number): string {
  const s = n.toExponential(p);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

function gfmt(n: number, p: number, alt: boolean): string {
  const P = p === 0 ? 1 : p;
  if (n === 0) return '0';
  const x = Math.floor(Math.log10(n));
  let s: string;
  if (x < -4 || x >= P) s = expo(n, P - 1);
  else s = n.toFixed(Math.max(0, P - 1 - x));
  if (!alt) s = s.includes('e') ? s.replace(/\.?0+e/, 'e') : s.includes('.') ? s.replace(/\.?0+$/, '') : s;
  return s;
}
