/** Guest source: `punycode` (RFC 3492 encode/decode, toASCII/toUnicode per label, ucs2 helpers). */
export const NODE_PUNYCODE_SOURCE = String.raw`(function (lib) {
  'use strict';
  const BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700, BIAS = 72, N = 128;
  const err = (m) => new RangeError(m);
  const OVERFLOW = 'Overflow: input needs wider integers to process';
  const adapt = (delta, points, first) => {
    let k = 0;
    delta = first ? Math.floor(delta / DAMP) : delta >> 1;
    delta += Math.floor(delta / points);
    for (; delta > ((BASE - TMIN) * TMAX) >> 1; k += BASE) delta = Math.floor(delta / (BASE - TMIN));
    return Math.floor(k + ((BASE - TMIN + 1) * delta) / (delta + SKEW));
  };
  const digit = (d) => String.fromCharCode(d + 22 + 75 * (d < 26));
  const basic = (c) => (c - 48 < 10 ? c - 22 : c - 65 < 26 ? c - 65 : c - 97 < 26 ? c - 97 : BASE);
  const ucs2decode = (s) => Array.from(s, (ch) => ch.codePointAt(0));
  const ucs2encode = (points) => String.fromCodePoint(...points);
  const encode = (input) => {
    const cps = ucs2decode(input);
    let out = cps.filter((c) => c < 0x80).map((c) => String.fromCharCode(c)).join('');
    const b = out.length;
    let h = b;
    if (b) out += '-';
    let n = N, delta = 0, bias = BIAS;
    while (h < cps.length) {
      let m = Infinity;
      for (const c of cps) if (c >= n && c < m) m = c;
      if (m - n > Math.floor((0x7fffffff - delta) / (h + 1))) throw err(OVERFLOW);
      delta += (m - n) * (h + 1);
      n = m;
      for (const c of cps) {
        if (c < n && ++delta > 0x7fffffff) throw err(OVERFLOW);
        if (c === n) {
          let q = delta;
          for (let k = BASE; ; k += BASE) {
            const t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
            if (q < t) break;
            out += digit(t + ((q - t) % (BASE - t)));
            q = Math.floor((q - t) / (BASE - t));
          }
          out += digit(q);
          bias = adapt(delta, h + 1, h === b);
          delta = 0;
          h++;
        }
      }
      delta++;
      n++;
    }
    return out;
  };
  const decode = (input) => {
    const out = [];
    let basicEnd = input.lastIndexOf('-');
    if (basicEnd < 0) basicEnd = 0;
    for (let j = 0; j < basicEnd; j++) {
      if (input.charCodeAt(j) >= 0x80) throw err('Illegal input >= 0x80 (not a basic code point)');
      out.push(input.charCodeAt(j));
    }
    let n = N, bias = BIAS, i = 0;
    for (let idx = basicEnd > 0 ? basicEnd + 1 : 0; idx < input.length; ) {
      const old = i;
      for (let w = 1, k = BASE; ; k += BASE) {
        if (idx >= input.length) throw err('Invalid input');
        const d = basic(input.charCodeAt(idx++));
        if (d >= BASE || d > Math.floor((0x7fffffff - i) / w)) throw err('Invalid input');
        i += d * w;
        const t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
        if (d < t) break;
        if (w > Math.floor(0x7fffffff / (BASE - t))) throw err(OVERFLOW);
        w *= BASE - t;
      }
      const len = out.length + 1;
      bias = adapt(i - old, len, old === 0);
      if (Math.floor(i / len) > 0x7fffffff - n) throw err(OVERFLOW);
      n += Math.floor(i / len);
      i %= len;
      out.splice(i++, 0, n);
    }
    return String.fromCodePoint(...out);
  };
  const mapLabels = (domain, fn) => {
    const at = domain.lastIndexOf('@');
    const head = at >= 0 ? domain.slice(0, at + 1) : '';
    const rest = (at >= 0 ? domain.slice(at + 1) : domain).replace(/[\u3002\uFF0E\uFF61]/g, '.');
    return head + rest.split('.').map(fn).join('.');
  };
  const toASCII = (d) => mapLabels(d, (l) => (/[^\0-\x7F]/.test(l) ? 'xn--' + encode(l) : l));
  const toUnicode = (d) => mapLabels(d, (l) => (/^xn--/i.test(l) ? decode(l.slice(4).toLowerCase()) : l));
  return { version: '2.1.0', ucs2: { decode: ucs2decode, encode: ucs2encode }, encode, decode, toASCII, toUnicode };
})`;
