/** Guest source: `path` (POSIX semantics, as Node's `path.posix`; the sandbox has no Windows paths). */
export const NODE_PATH_SOURCE = String.raw`(function (lib) {
  'use strict';
  const check = (p, name) => {
    if (typeof p !== 'string') throw new TypeError('The "' + (name || 'path') + '" argument must be of type string');
  };
  const normalizeParts = (p, allowAbove) => {
    const out = [];
    for (const seg of p.split('/')) {
      if (seg === '' || seg === '.') continue;
      if (seg === '..') {
        if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
        else if (allowAbove) out.push('..');
      } else out.push(seg);
    }
    return out;
  };
  const path = {
    sep: '/',
    delimiter: ':',
    cwd: '/',
    normalize(p) {
      check(p);
      if (p === '') return '.';
      const abs = p.startsWith('/');
      const trailing = p.endsWith('/');
      let s = normalizeParts(p, !abs).join('/');
      if (s === '' && !abs) s = '.';
      if (s !== '' && trailing) s += '/';
      return (abs ? '/' : '') + s;
    },
    join(...parts) {
      for (const p of parts) check(p);
      const j = parts.filter((p) => p !== '').join('/');
      return j === '' ? '.' : path.normalize(j);
    },
    resolve(...parts) {
      let r = '';
      for (let i = parts.length - 1; i >= 0 && !r.startsWith('/'); i--) {
        check(parts[i]);
        if (parts[i] !== '') r = parts[i] + (r === '' ? '' : '/' + r);
      }
      if (!r.startsWith('/')) r = path.cwd + (r === '' ? '' : '/' + r);
      return '/' + normalizeParts(r, false).join('/');
    },
    isAbsolute(p) { check(p); return p.startsWith('/'); },
    relative(from, to) {
      check(from, 'from'); check(to, 'to');
      const a = path.resolve(from).split('/').filter(Boolean);
      const b = path.resolve(to).split('/').filter(Boolean);
      let i = 0;
      while (i < a.length && i < b.length && a[i] === b[i]) i++;
      return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
    },
    dirname(p) {
      check(p);
      if (p === '') return '.';
      let end = p.length;
      while (end > 1 && p[end - 1] === '/') end--;
      const i = p.lastIndexOf('/', end - 1);
      if (i < 0) return '.';
      if (i === 0) return '/';
      let j = i;
      while (j > 1 && p[j - 1] === '/') j--;
      return p.slice(0, j);
    },
    basename(p, ext) {
      check(p);
      let end = p.length;
      while (end > 0 && p[end - 1] === '/') end--;
      if (end === 0) return '';
      const base = p.slice(p.lastIndexOf('/', end - 1) + 1, end);
      if (ext !== undefined && base !== ext && base.endsWith(ext)) return base.slice(0, base.length - ext.length);
      return base;
    },
    extname(p) {
      check(p);
      const base = path.basename(p);
      const i = base.lastIndexOf('.');
      return i <= 0 || base === '..' ? '' : base.slice(i);
    },
    parse(p) {
      check(p);
      const root = p.startsWith('/') ? '/' : '';
      const base = path.basename(p);
      const ext = path.extname(p);
      let dir = path.dirname(p);
      if (dir === '.' && !p.startsWith('.')) dir = '';
      return { root, dir, base, ext, name: ext ? base.slice(0, base.length - ext.length) : base };
    },
    format(o) {
      if (o === null || typeof o !== 'object') throw new TypeError('The "pathObject" argument must be of type object');
      const dir = o.dir || o.root || '';
      const base = o.base || (o.name || '') + (o.ext ? (o.ext.startsWith('.') ? '' : '.') + o.ext : '');
      if (!dir) return base;
      return dir === o.root ? dir + base : dir + '/' + base;
    },
    toNamespacedPath(p) { return p; },
    matchesGlob() { throw Object.assign(new Error('path.matchesGlob is not available in the sandbox'), {
      code: 'ERR_NOT_IMPLEMENTED' }); },
  };
  path.posix = path;
  path.win32 = new Proxy({}, { get() {
    throw Object.assign(new Error('path.win32 is not available in the sandbox'), { code: 'ERR_NOT_IMPLEMENTED' }); } });
  return path;
})`;
