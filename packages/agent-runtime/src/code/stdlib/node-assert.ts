/** Guest source: `assert` (and `assert/strict`): Node's assertion functions and AssertionError. */
export const NODE_ASSERT_SOURCE = String.raw`(function (lib) {
  'use strict';
  const show = (v) => lib.load('node:util').inspect(v, { depth: 3 });
  class AssertionError extends Error {
    constructor(options = {}) {
      super(options.message !== undefined ? String(options.message)
        : show(options.actual) + ' ' + (options.operator || '==') + ' ' + show(options.expected));
      this.name = 'AssertionError';
      this.code = 'ERR_ASSERTION';
      this.actual = options.actual;
      this.expected = options.expected;
      this.operator = options.operator;
      this.generatedMessage = options.message === undefined;
    }
  }
  const fail = (actual, expected, message, operator) => {
    if (message instanceof Error) throw message;
    throw new AssertionError({ actual, expected, message, operator });
  };
  const deepEq = (a, b, strict, seen) => {
    if (strict ? Object.is(a, b) : a == b || (a !== a && b !== b)) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    const tag = Object.prototype.toString.call(a);
    if (tag !== Object.prototype.toString.call(b)) return false;
    const key = seen.find((p) => p[0] === a && p[1] === b);
    if (key) return true;
    seen.push([a, b]);
    if (a instanceof Date) return a.getTime() === b.getTime();
    if (a instanceof RegExp) return String(a) === String(b);
    if (ArrayBuffer.isView(a) || a instanceof ArrayBuffer) {
      const x = new Uint8Array(a.buffer || a, a.byteOffset || 0, a.byteLength);
      const y = new Uint8Array(b.buffer || b, b.byteOffset || 0, b.byteLength);
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
      if (!(a instanceof ArrayBuffer) && !(a instanceof Uint8Array)) return true;
    }
    if (a instanceof Map) {
      if (a.size !== b.size) return false;
      for (const [k, v] of a) if (!b.has(k) || !deepEq(v, b.get(k), strict, seen)) return false;
      return true;
    }
    if (a instanceof Set) {
      if (a.size !== b.size) return false;
      for (const v of a) if (!b.has(v) && ![...b].some((w) => deepEq(v, w, strict, seen))) return false;
      return true;
    }
    if (a instanceof Error && (a.message !== b.message || a.name !== b.name)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !deepEq(a[k], b[k], strict,
      seen)) return false;
    return true;
  };
  const matches = (err, expected, message) => {
    if (expected === undefined) return;
    if (typeof expected === 'function') {
      if (expected.prototype !== undefined && err instanceof expected) return;
      if (Error.isPrototypeOf(expected) || expected === Error) fail(err, expected, message, 'throws');
      if (expected.call({}, err) === true) return;
      fail(err, expected, message, 'throws');
    }
    if (expected instanceof RegExp) {
      if (expected.test(String(err))) return;
      fail(err, expected, message, 'throws');
    }
    if (typeof expected === 'object' && expected !== null) {
      for (const k of Object.keys(expected)) {
        const e = expected[k];
        const ok = e instanceof RegExp && typeof err[k] === 'string' ? e.test(err[k]) : deepEq(err[k], e, true, []);
        if (!ok) fail(err, expected, message, 'throws');
      }
    }
  };
  const make = (strictMode) => {
    const assert = (v, message) => assert.ok(v, message);
    assert.ok = (v, message) => { if (!v) fail(v, true, message, '=='); };
    assert.equal = strictMode ? (a, b, m) => assert.strictEqual(a, b, m) : (a, b, m) => { if (!(a == b ||
      (a !== a && b !== b))) fail(a, b, m, '=='); };
    assert.notEqual = strictMode ? (a, b, m) => assert.notStrictEqual(a, b, m) : (a, b, m) => {
      if (a == b) fail(a, b, m, '!='); };
    assert.strictEqual = (a, b, m) => { if (!Object.is(a, b)) fail(a, b, m, 'strictEqual'); };
    assert.notStrictEqual = (a, b, m) => { if (Object.is(a, b)) fail(a, b, m, 'notStrictEqual'); };
    assert.deepStrictEqual = (a, b, m) => { if (!deepEq(a, b, true, [])) fail(a, b, m, 'deepStrictEqual'); };
    assert.notDeepStrictEqual = (a, b, m) => { if (deepEq(a, b, true, [])) fail(a, b, m, 'notDeepStrictEqual'); };
    assert.deepEqual = strictMode ? assert.deepStrictEqual : (a, b, m) => { if (!deepEq(a, b, false,
      [])) fail(a, b, m, 'deepEqual'); };
    assert.notDeepEqual = strictMode ? assert.notDeepStrictEqual : (a, b, m) => { if (deepEq(a, b, false,
      [])) fail(a, b, m, 'notDeepEqual'); };
    assert.fail = (message = 'Failed') => fail(undefined, undefined, message, 'fail');
    assert.throws = (fn, expected, message) => {
      if (typeof expected === 'string') { message = expected; expected = undefined; }
      try { fn(); } catch (e) { matches(e, expected, message); return; }
      fail(undefined, expected, message || 'Missing expected exception.', 'throws');
    };
    assert.doesNotThrow = (fn, message) => {
      try { fn(); } catch (e) { fail(e, undefined, typeof message === 'string' ? message :
        'Got unwanted exception.\nActual message: "' + (e && e.message) + '"', 'doesNotThrow'); }
    };
    assert.rejects = async (p, expected, message) => {
      if (typeof expected === 'string') { message = expected; expected = undefined; }
      try { await (typeof p === 'function' ? p() : p); } catch (e) { matches(e, expected, message); return; }
      fail(undefined, expected, message || 'Missing expected rejection.', 'rejects');
    };
    assert.doesNotReject = async (p, message) => {
      try { await (typeof p === 'function' ? p() : p); } catch (e) { fail(e, undefined, message ||
        'Got unwanted rejection.', 'doesNotReject'); }
    };
    assert.match = (s, re, m) => { if (!re.test(s)) fail(s, re, m, 'match'); };
    assert.doesNotMatch = (s, re, m) => { if (re.test(s)) fail(s, re, m, 'doesNotMatch'); };
    assert.ifError = (v) => { if (v !== null && v !== undefined) throw v; };
    assert.AssertionError = AssertionError;
    return assert;
  };
  const assert = make(false);
  assert.strict = make(true);
  assert.strict.strict = assert.strict;
  assert.deepEqualStrict = (a, b) => deepEq(a, b, true, []);
  Object.defineProperty(assert, 'deepEqualStrict', { enumerable: false });
  return assert;
})`;
