/**
 * Guest sources: `url` (WHATWG URL and URLSearchParams, plus the legacy `parse`/`format`/`resolve`,
 * `fileURLToPath`/`pathToFileURL` and the domain helpers, each answered by Node's own `node:url` on
 * strings) and `querystring`.
 */
export const NODE_URL_SOURCE = String.raw`(function (lib) {
  'use strict';
  const web = lib.load('web:url');
  const qs = lib.load('node:querystring');
  const parse = (s, parseQueryString, slashesDenoteHost) => {
    if (typeof s !== 'string') throw new TypeError('The "url" argument must be of type string');
    const u = JSON.parse(lib.std('legacyparse', s, Boolean(parseQueryString), Boolean(slashesDenoteHost)));
    if (parseQueryString) u.query = qs.parse(u.search ? u.search.slice(1) : '');
    return u;
  };
  const format = (u) => {
    if (u instanceof web.URL) return u.href;
    if (typeof u === 'string') return lib.std('legacyformat', JSON.stringify(parse(u)));
    const o = Object.assign({}, u);
    if (o.query && typeof o.query === 'object') o.query = qs.parse(qs.stringify(o.query));
    return lib.std('legacyformat', JSON.stringify(o));
  };
  return {
    URL: web.URL,
    URLSearchParams: web.URLSearchParams,
    parse,
    format,
    resolve: (from, to) => lib.std('legacyresolve', String(from), String(to)),
    fileURLToPath: (u) => lib.std('fileurltopath', String(u instanceof web.URL ? u.href : u)),
    pathToFileURL: (p) => new web.URL(lib.std('pathtofileurl', String(p))),
    domainToASCII: (d) => lib.std('toASCII', String(d)),
    domainToUnicode: (d) => lib.std('toUnicode', String(d)),
  };
})`;

export const NODE_QUERYSTRING_SOURCE = String.raw`(function (lib) {
  'use strict';
  const unescape = (s) => {
    try { return decodeURIComponent(s); } catch (e) { return lib.std('unescape', s); }
  };
  const escape = (s) => lib.load('web:url').formEncode(s).replace(/\+/g, '%20');
  const str = (v) =>
    typeof v === 'string' ? v : (typeof v === 'number' && isFinite(v)) || typeof v === 'bigint' ||
      typeof v === 'boolean'
      ? String(v) : '';
  const stringify = (obj, sep = '&', eq = '=', options = {}) => {
    const enc = (options && options.encodeURIComponent) || escape;
    if (obj === null || typeof obj !== 'object') return '';
    const out = [];
    for (const k of Object.keys(obj)) {
      const v = obj[k];
      const ks = enc(str(k)) + eq;
      if (Array.isArray(v)) for (const x of v) out.push(ks + enc(str(x)));
      else out.push(ks + enc(str(v)));
    }
    return out.join(sep);
  };
  const parse = (s, sep = '&', eq = '=', options = {}) => {
    const out = Object.create(null);
    if (typeof s !== 'string' || s.length === 0) return out;
    const dec = (options && options.decodeURIComponent) || unescape;
    const maxKeys = options && typeof options.maxKeys === 'number' ? options.maxKeys : 1000;
    let parts = s.split(sep);
    if (maxKeys > 0) parts = parts.slice(0, maxKeys);
    for (const part of parts) {
      if (part === '') continue;
      const i = part.indexOf(eq);
      const k = dec((i < 0 ? part : part.slice(0, i)).replace(/\+/g, ' '));
      const v = i < 0 ? '' : dec(part.slice(i + eq.length).replace(/\+/g, ' '));
      if (!(k in out)) out[k] = v;
      else if (Array.isArray(out[k])) out[k].push(v);
      else out[k] = [out[k], v];
    }
    return out;
  };
  return { parse, stringify, escape, unescape, decode: parse, encode: stringify };
})`;
