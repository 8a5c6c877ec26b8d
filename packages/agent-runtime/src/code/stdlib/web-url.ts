/**
 * Guest source: URL and URLSearchParams. Parsing and every setter are answered by the host's WHATWG
 * URL parser over strings (so the guest parses exactly as Node does); URLSearchParams is plain
 * JavaScript (application/x-www-form-urlencoded).
 */
export const WEB_URL_SOURCE = String.raw`(function (lib) {
  'use strict';
  const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  const formEncode = (s) =>
    encodeURIComponent(String(s).replace(LONE, '\uFFFD'))
      .replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
      .replace(/%20/g, '+');
  const formDecode = (s) => {
    const t = s.replace(/\+/g, ' ');
    try { return decodeURIComponent(t); } catch (e) { return lib.std('unescape', t); }
  };
  const parseQuery = (q) => {
    const list = [];
    for (const part of q.split('&')) {
      if (part === '') continue;
      const i = part.indexOf('=');
      list.push(i < 0 ? [formDecode(part), ''] : [formDecode(part.slice(0, i)), formDecode(part.slice(i + 1))]);
    }
    return list;
  };
  const lists = new WeakMap();
  const owners = new WeakMap();
  const changed = (sp) => {
    const url = owners.get(sp);
    if (url) url._setSearchFromParams(sp.toString());
  };
  class URLSearchParams {
    constructor(init = '') {
      let list = [];
      if (typeof init === 'string') list = parseQuery(init.startsWith('?') ? init.slice(1) : init);
      else if (init instanceof URLSearchParams) list = lists.get(init).map((p) => [p[0], p[1]]);
      else if (init && typeof init === 'object' && typeof init[Symbol.iterator] === 'function') {
        for (const pair of init) {
          const p = [...pair];
          if (p.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
          list.push([String(p[0]), String(p[1])]);
        }
      } else if (init && typeof init === 'object') {
        for (const k of Object.keys(init)) list.push([k, String(init[k])]);
      } else if (init !== undefined && init !== null) list = parseQuery(String(init));
      lists.set(this, list);
    }
    get size() { return lists.get(this).length; }
    append(name, value) { lists.get(this).push([String(name), String(value)]); changed(this); }
    delete(name, value) {
      const n = String(name);
      const l = lists.get(this);
      lists.set(this, l.filter((p) => !(p[0] === n && (value === undefined || p[1] === String(value)))));
      changed(this);
    }
    get(name) { const p = lists.get(this).find((q) => q[0] === String(name)); return p ? p[1] : null; }
    getAll(name) { return lists.get(this).filter((q) => q[0] === String(name)).map((q) => q[1]); }
    has(name, value) {
      return lists.get(this).some((q) => q[0] === String(name) && (value === undefined || q[1] === String(value)));
    }
    set(name, value) {
      const n = String(name);
      const l = lists.get(this);
      const i = l.findIndex((q) => q[0] === n);
      if (i < 0) l.push([n, String(value)]);
      else {
        l[i] = [n, String(value)];
        lists.set(this, l.filter((q, j) => j <= i || q[0] !== n));
      }
      changed(this);
    }
    sort() {
      const l = lists.get(this).map((p, i) => [p, i]);
      l.sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]));
      lists.set(this, l.map((x) => x[0]));
      changed(this);
    }
    forEach(fn, thisArg) { for (const [k, v] of lists.get(this)) fn.call(thisArg, v, k, this); }
    *entries() { for (const p of lists.get(this)) yield [p[0], p[1]]; }
    *keys() { for (const p of lists.get(this)) yield p[0]; }
    *values() { for (const p of lists.get(this)) yield p[1]; }
    [Symbol.iterator]() { return this.entries(); }
    toString() { return lists.get(this).map((p) => formEncode(p[0]) + '=' + formEncode(p[1])).join('&'); }
    get [Symbol.toStringTag]() { return 'URLSearchParams'; }
  }
  const parse = (input, base) => JSON.parse(lib.std('url', String(input), base === undefined ? undefined :
    String(base)));
  class URL {
    #p; #sp;
    constructor(input, base) {
      if (arguments.length === 0) throw new TypeError('URL requires at least one argument');
      this.#p = parse(input, base);
    }
    static canParse(input, base) { try { parse(input, base); return true; } catch (e) { return false; } }
    static parse(input, base) { try { return new URL(input, base); } catch (e) { return null; } }
    #set(key, value) { this.#p = JSON.parse(lib.std('urlset', this.#p.href, key, String(value))); this.#resync(); }
    #resync() { if (this.#sp) lists.set(this.#sp, parseQuery(this.#p.search.slice(1))); }
    _setSearchFromParams(s) { this.#p = JSON.parse(lib.std('urlsearch', this.#p.href, s)); }
    get href() { return this.#p.href; }
    set href(v) { this.#p = parse(v); this.#resync(); }
    get origin() { return this.#p.origin; }
    get protocol() { return this.#p.protocol; }
    set protocol(v) { this.#set('protocol', v); }
    get username() { return this.#p.username; }
    set username(v) { this.#set('username', v); }
    get password() { return this.#p.password; }
    set password(v) { this.#set('password', v); }
    get host() { return this.#p.host; }
    set host(v) { this.#set('host', v); }
    get hostname() { return this.#p.hostname; }
    set hostname(v) { this.#set('hostname', v); }
    get port() { return this.#p.port; }
    set port(v) { this.#set('port', v); }
    get pathname() { return this.#p.pathname; }
    set pathname(v) { this.#set('pathname', v); }
    get search() { return this.#p.search; }
    set search(v) { this.#p = JSON.parse(lib.std('urlsearch', this.#p.href, String(v))); this.#resync(); }
    get hash() { return this.#p.hash; }
    set hash(v) { this.#p = JSON.parse(lib.std('urlhash', this.#p.href, String(v))); }
    get searchParams() {
      if (!this.#sp) {
        this.#sp = new URLSearchParams(this.#p.search);
        owners.set(this.#sp, this);
      }
      return this.#sp;
    }
    toString() { return this.#p.href; }
    toJSON() { return this.#p.href; }
    get [Symbol.toStringTag]() { return 'URL'; }
  }
  Object.defineProperty(URL.prototype, '_setSearchFromParams', { enumerable: false });
  return { URL, URLSearchParams, formEncode, formDecode };
})`;
