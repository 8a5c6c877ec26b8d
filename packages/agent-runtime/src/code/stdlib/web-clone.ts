/**
 * Guest source: structuredClone (the HTML structured-clone algorithm, in the isolate): primitives,
 * plain objects, arrays, Date, RegExp, Map, Set, ArrayBuffer, typed arrays, DataView, errors and
 * boxed primitives, with cycles and shared references kept. Functions, symbols and class instances'
 * prototypes are not cloned (DataCloneError / plain objects), as in Node.
 */
export const WEB_CLONE_SOURCE = String.raw`(function (lib) {
  'use strict';
  const fail = (what) => { const e = new Error(what + ' could not be cloned.'); e.name = 'DataCloneError'; return e; };
  const ERRORS = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  function structuredClone(value, options) {
    if (arguments.length === 0) throw new TypeError('structuredClone requires 1 argument');
    const seen = new Map();
    const walk = (v) => {
      if (v === null || (typeof v !== 'object' && typeof v !== 'function' && typeof v !== 'symbol')) return v;
      if (typeof v === 'function') throw fail(String(v).slice(0, 40));
      if (typeof v === 'symbol') throw fail(String(v));
      if (seen.has(v)) return seen.get(v);
      let out;
      const tag = Object.prototype.toString.call(v);
      if (tag === '[object Date]') out = new Date(v.getTime());
      else if (tag === '[object RegExp]') out = new RegExp(v.source, v.flags);
      else if (tag === '[object Boolean]' || tag === '[object Number]' || tag === '[object String]')
        out = Object(v.valueOf());
      else if (v instanceof ArrayBuffer) out = v.slice(0);
      else if (ArrayBuffer.isView(v)) {
        const buf = walk(v.buffer);
        out = v instanceof DataView ? new DataView(buf, v.byteOffset, v.byteLength)
          : new v.constructor(buf, v.byteOffset, v.length);
      } else if (v instanceof Map) {
        out = new Map();
        seen.set(v, out);
        for (const [k, x] of v) out.set(walk(k), walk(x));
        return out;
      } else if (v instanceof Set) {
        out = new Set();
        seen.set(v, out);
        for (const x of v) out.add(walk(x));
        return out;
      } else if (v instanceof Error) {
        const C = ERRORS[v.name] || Error;
        out = new C(v.message);
        seen.set(v, out);
        if ('stack' in v) out.stack = String(v.stack);
        if ('cause' in v) out.cause = walk(v.cause);
        return out;
      } else if (tag === '[object Promise]' || tag === '[object WeakMap]' || tag === '[object WeakSet]')
        throw fail(tag);
      else if (Array.isArray(v)) {
        out = new Array(v.length);
        seen.set(v, out);
        for (const k of Object.keys(v)) out[k] = walk(v[k]);
        return out;
      } else {
        out = {};
        seen.set(v, out);
        for (const k of Object.keys(v)) out[k] = walk(v[k]);
        return out;
      }
      seen.set(v, out);
      return out;
    };
    return walk(value);
  }
  return { structuredClone };
})`;
