/**
 * Guest source: `util`: format, formatWithOptions, inspect (a compact Node-like rendering: depth,
 * cycles as [Circular *1]-style markers, Map/Set/Date/RegExp/Error/typed arrays), inherits,
 * promisify, callbackify, deprecate, isDeepStrictEqual, types, TextEncoder and TextDecoder.
 */
export const NODE_UTIL_SOURCE = String.raw`(function (lib) {
  'use strict';
  const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const quote = (s) => "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n') + "'";
  const keyText = (k) => (typeof k === 'symbol' ? '[' + String(k) + ']' : IDENT.test(k) ? k : quote(k));
  function inspect(value, opts) {
    const o = Object.assign({ depth: 2, breakLength: 80, compact: 3, showHidden: false },
      typeof opts === 'object' && opts !== null ? opts : {});
    const depthMax = o.depth === null ? Infinity : o.depth;
    const stack = [];
    const fmt = (v, depth) => {
      if (v === null) return 'null';
      switch (typeof v) {
        case 'undefined': return 'undefined';
        case 'string': return depth === 0 && o._top ? v : quote(v);
        case 'number': return Object.is(v, -0) ? '-0' : String(v);
        case 'bigint': return String(v) + 'n';
        case 'boolean': return String(v);
        case 'symbol': return String(v);
        case 'function': {
          const name = v.name ? ': ' + v.name : ' (anonymous)';
          const kind = /^class\b/.test(Function.prototype.toString.call(v)) ? 'class' : 'Function';
          return '[' + kind + name + ']';
        }
      }
      if (stack.includes(v)) return '[Circular *1]';
      if (v instanceof Date) return isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
      if (v instanceof RegExp) return String(v);
      if (v instanceof Error) return v.stack && String(v.stack).includes(v.message) ? String(v.stack).trim()
        : v.name + ': ' + v.message;
      if (depth > depthMax) return Array.isArray(v) ? '[Array]' : '[' + ((v.constructor && v.constructor.name) ||
        'Object') + ']';
      stack.push(v);
      let items;
      let open = '{';
      let close = '}';
      let prefix = '';
      const ctor = Object.getPrototypeOf(v) === null ? '[Object: null prototype] '
        : v.constructor && v.constructor.name && v.constructor.name !== 'Object' ? v.constructor.name + ' ' : '';
      if (Array.isArray(v)) {
        items = [];
        const shown = Math.min(v.length, 100);
        for (let i = 0; i < shown; i++) items.push(i in v ? fmt(v[i], depth + 1) : '<1 empty item>');
        if (v.length > shown) items.push('... ' + (v.length - shown) + ' more items');
        open = '['; close = ']';
        prefix = ctor && ctor !== 'Array ' ? ctor : '';
      } else if (v instanceof Map) {
        items = [...v].map(([k, x]) => fmt(k, depth + 1) + ' => ' + fmt(x, depth + 1));
        prefix = 'Map(' + v.size + ') ';
      } else if (v instanceof Set) {
        items = [...v].map((x) => fmt(x, depth + 1));
        prefix = 'Set(' + v.size + ') ';
      } else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
        const shown = Math.min(v.length, 100);
        items = [];
        for (let i = 0; i < shown; i++) items.push(fmt(v[i], depth + 1));
        if (v.length > shown) items.push('... ' + (v.length - shown) + ' more items');
        open = '['; close = ']';
        prefix = (v.constructor.name === 'Buffer' ? 'Buffer' : v.constructor.name) + '(' + v.length + ') ';
        if (v.constructor.name === 'Buffer') {
          stack.pop();
          return '<Buffer' + [...v.subarray(0, 50)].map((b) => ' ' + b.toString(16).padStart(2, '0')).join('') +
            (v.length > 50 ? ' ... ' + (v.length - 50) + ' more bytes' : '') + '>';
        }
      } else if (v instanceof ArrayBuffer) {
        stack.pop();
        return 'ArrayBuffer { byteLength: ' + v.byteLength + ' }';
      } else if (typeof Promise !== 'undefined' && v instanceof Promise) {
        stack.pop();
        return 'Promise { <unknown> }';
      } else {
        items = [];
        prefix = ctor;
      }
      if (!(v instanceof Map) && !(v instanceof Set) && !ArrayBuffer.isView(v)) {
        for (const k of Object.keys(v)) {
          if (Array.isArray(v) && String(Number(k)) === k) continue;
          const d = Object.getOwnPropertyDescriptor(v, k);
          const shown = d && d.get ? (d.set ? '[Getter/Setter]' : '[Getter]') : d && d.set ? '[Setter]' :
            fmt(v[k], depth + 1);
          items.push(keyText(k) + ': ' + shown);
        }
        for (const s of Object.getOwnPropertySymbols(v))
          if (Object.getOwnPropertyDescriptor(v, s).enumerable) items.push(keyText(s) + ': ' + fmt(v[s], depth + 1));
      }
      stack.pop();
      if (items.length === 0) return prefix + open + close;
      const one = prefix + open + ' ' + items.join(', ') + ' ' + close;
      if (one.length <= o.breakLength && !one.includes('\n')) return one;
      const pad = '  '.repeat(depth + 1);
      return prefix + open + '\n' + items.map((i) => pad + i.replace(/\n/g, '\n' + pad.slice(2))).join(',\n') + '\n' +
        '  '.repeat(depth) + close;
    };
    return fmt(value, 0);
  }
  inspect.custom = Symbol.for('nodejs.util.inspect.custom');
  const formatWithOptions = (opts, ...args) => {
    const first = args[0];
    let i = 0;
    let out = '';
    if (typeof first === 'string') {
      i = 1;
      out = first.replace(/%([sdifjoOc%])/g, (m, c) => {
        if (c === '%') return '%';
        if (i >= args.length) return m;
        const a = args[i++];
        switch (c) {
          case 's': return typeof a === 'string' ? a : typeof a === 'bigint' ? a + 'n'
            : typeof a === 'object' && a !== null ? inspect(a, Object.assign({ depth: 1 }, opts)) : String(a);
          case 'd': return typeof a === 'bigint' ? a + 'n' : typeof a === 'object' && a !== null ? 'NaN' :
            String(Number(a));
          case 'i': return typeof a === 'bigint' ? a + 'n' : String(parseInt(a, 10));
          case 'f': return String(parseFloat(a));
          case 'j': try { return JSON.stringify(a); } catch (e) { return '[Circular]'; }
          case 'o': return inspect(a, Object.assign({ depth: 4, showHidden: true }, opts));
          case 'O': return inspect(a, opts);
          case 'c': return '';
        }
        return m;
      });
    }
    for (; i < args.length; i++) {
      const a = args[i];
      out += (out === '' && i === 0 ? '' : ' ') + (typeof a === 'string' ? a : inspect(a, opts));
    }
    return out;
  };
  const format = (...args) => formatWithOptions({}, ...args);
  const isDeepStrictEqual = (a, b) => lib.load('node:assert').deepEqualStrict(a, b);
  const promisify = (fn) => {
    if (typeof fn !== 'function') throw new TypeError('The "original" argument must be of type function');
    if (fn[promisify.custom]) return fn[promisify.custom];
    return function (...args) {
      return new Promise((resolve, reject) => {
        fn.call(this, ...args, (err, ...values) => (err ? reject(err) : resolve(values.length > 1 ? values :
          values[0])));
      });
    };
  };
  promisify.custom = Symbol.for('nodejs.util.promisify.custom');
  const callbackify = (fn) => function (...args) {
    const cb = args.pop();
    fn.apply(this, args).then((v) => cb(null, v), (e) => cb(e || new Error('Promise was rejected with a falsy value')));
  };
  const inherits = (ctor, superCtor) => {
    Object.defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true });
    Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
  };
  const deprecate = (fn, msg) => {
    let warned = false;
    return function (...args) {
      if (!warned) { warned = true; console.warn('DeprecationWarning: ' + msg); }
      return new.target ? Reflect.construct(fn, args, new.target) : fn.apply(this, args);
    };
  };
  const tag = (v) => Object.prototype.toString.call(v).slice(8, -1);
  const types = {
    isDate: (v) => tag(v) === 'Date', isRegExp: (v) => tag(v) === 'RegExp', isMap: (v) => v instanceof Map,
    isSet: (v) => v instanceof Set, isPromise: (v) => v instanceof Promise,
      isTypedArray: (v) => ArrayBuffer.isView(v) && !(v instanceof DataView),
    isUint8Array: (v) => v instanceof Uint8Array, isArrayBuffer: (v) => v instanceof ArrayBuffer,
    isNativeError: (v) => v instanceof Error, isAsyncFunction: (v) => tag(v) === 'AsyncFunction',
  };
  const enc = lib.load('web:encoding');
  return {
    format, formatWithOptions, inspect, isDeepStrictEqual, promisify, callbackify, inherits, deprecate, types,
    isArray: Array.isArray, TextEncoder: enc.TextEncoder, TextDecoder: enc.TextDecoder,
  };
})`;
