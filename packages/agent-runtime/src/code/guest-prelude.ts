/**
 * The JavaScript that runs inside the QuickJS isolate before agent code. It turns three host
 * functions (call, settle, log) into the `adf` bridge and a `console`, and then forgets them:
 * the agent code is compiled as the body of an inner function whose parameters shadow them.
 *
 * Nothing here is a security boundary by itself: the isolate holds no host object at all, and
 * every `adf.*` call is checked again on the host side. The prelude only makes the guest API
 * pleasant (promises, JSON values) and hard to confuse (frozen bridge, no prototype to pollute).
 */

import { GUEST_NODE_MODULES, GUEST_UNSUPPORTED_MODULES } from './stdlib/index.js';
import { rewriteImports } from './guest-imports.js';

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** How the agent code is entered: a script body, or a named function defined by the file. */
export type GuestEntry =
  | { readonly kind: 'script' }
  | { readonly kind: 'function'; readonly name: string; readonly args: unknown }
  | { readonly kind: 'function'; readonly name: string; readonly argsText: string };

/** True when `name` may be used as a lambda entry point (a plain JS identifier). */
export function isGuestIdentifier(name: string): boolean {
  return IDENT.test(name) && name.length <= 128;
}

/**
 * Builds the source of one execution: an expression that evaluates to a function taking
 * (call, settle, log). The host calls it once with its three bridge functions.
 */
export function buildGuestSource(code: string, entry: GuestEntry): string {
  let body = rewriteImports(code);
  if (entry.kind === 'function') {
    if (!isGuestIdentifier(entry.name)) throw new Error(`invalid entry name ${JSON.stringify(entry.name)}`);
    const argsLiteral = JSON.stringify('argsText' in entry ? entry.argsText : JSON.stringify(entry.args ?? null));
    const missing = `lambda entry ${entry.name} is not a function defined by this file`;
    body =
      `${body}\n;if (typeof ${entry.name} !== 'function') throw new TypeError('${missing}');\n` +
      `return await ${entry.name}(JSON.parse(${argsLiteral}));`;
  }
  return `(function (__call, __settle, __log, __std, __sleep) {
  "use strict";
  const toJson = (v) => { const s = JSON.stringify(v === undefined ? null : v); return s === undefined ? 'null' : s; };
  const invoke = (method, args) =>
    __call(String(method), toJson(args === undefined ? {} : args)).then((s) => JSON.parse(s));
  const bridge = Object.create(null);
  const handler = Object.freeze({
    get(_t, key) { return typeof key === 'string' ? ((args) => invoke(key, args)) : undefined; },
    set() { return false; }, defineProperty() { return false; }, deleteProperty() { return false; },
    setPrototypeOf() { return false; }, getPrototypeOf() { return null; },
  });
  Object.freeze(bridge);
  const adf = new Proxy(bridge, handler);
  const fmt = (a) => {
    try { return typeof a === 'string' ? a : JSON.stringify(a); } catch (e) { return String(a); }
  };
  const logAt = (level) => (...a) => { __log(level, a.map(fmt).join(' ')); };
  const cons = Object.freeze({
    log: logAt('log'), info: logAt('info'), warn: logAt('warn'), error: logAt('error'), debug: logAt('debug'),
  });
  const fixed = (value) => ({ value, writable: false, configurable: false, enumerable: false });
  Object.defineProperty(globalThis, 'adf', fixed(adf));
  Object.defineProperty(globalThis, 'console', fixed(cons));
  const reportError = (e) => {
    const obj = e && typeof e === 'object';
    const name = obj && typeof e.name === 'string' ? e.name : 'Error';
    const msg = obj && 'message' in e ? String(e.message) : String(e);
    const code = obj && typeof e.code === 'string' ? e.code + ': ' : '';
    __settle(false, name, code + msg);
  };
${STDLIB_PRELUDE}
  const run = (async function (__call, __settle, __log, __std, __sleep) {
${body}
  });
  return run(undefined, undefined, undefined, undefined, undefined).then(
    (v) => {
      let s;
      try { s = toJson(v); } catch (e) {
        __settle(false, 'TypeError', 'result is not JSON-serialisable: ' + String(e && e.message));
        return;
      }
      __settle(true, s, '');
    },
    reportError,
  );
})`;
}

// The standard library's eager part: lazy globals (each module is compiled into the isolate on its
// first use, by the host, from ./stdlib), queueMicrotask and require. Errors thrown by a timer or
// microtask callback end the run, as an uncaught exception ends a Node process.
const STDLIB_PRELUDE = `  const loaded = Object.create(null);
  const lib = Object.freeze({
    std: __std,
    sleep: __sleep,
    fail: (e) => reportError(e),
    load: (name) => {
      if (!(name in loaded)) loaded[name] = __std('module', name)(lib);
      return loaded[name];
    },
  });
  const own = (name, value) =>
    Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  const lazy = (name, mod, key) => Object.defineProperty(globalThis, name, {
    configurable: true, enumerable: false,
    get() { const v = lib.load(mod)[key]; own(name, v); return v; },
    set(v) { own(name, v); },
  });
  for (const n of ['TextEncoder', 'TextDecoder', 'atob', 'btoa']) lazy(n, 'web:encoding', n);
  for (const n of ['URL', 'URLSearchParams']) lazy(n, 'web:url', n);
  for (const n of ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'])
    lazy(n, 'web:timers', n);
  lazy('crypto', 'web:crypto', 'crypto');
  lazy('structuredClone', 'web:clone', 'structuredClone');
  lazy('Buffer', 'node:buffer', 'Buffer');
  own('queueMicrotask', (fn) => {
    if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function');
    Promise.resolve().then(() => { try { fn(); } catch (e) { reportError(e); } });
  });
  const MODULES = ${JSON.stringify(GUEST_NODE_MODULES)};
  const UNSUPPORTED = ${JSON.stringify(GUEST_UNSUPPORTED_MODULES)};
  const require = (id) => {
    if (typeof id !== 'string') throw new TypeError('The "id" argument must be of type string');
    let name = id.startsWith('node:') ? id.slice(5) : id;
    if (name === 'assert/strict') return lib.load('node:assert').strict;
    if (name === 'path/posix') name = 'path';
    if (MODULES.includes(name)) return lib.load('node:' + name);
    const unsupported = UNSUPPORTED.includes(name);
    const e = new Error('require(' + JSON.stringify(id).slice(0, 80) + '): ' + (unsupported
      ? 'this module is on the ADF allowlist but cannot run inside the code sandbox'
      : 'this module is not available to agent code') + '; available: ' + MODULES.join(', '));
    e.code = unsupported ? 'CODE_MODULE_UNSUPPORTED' : 'CODE_MODULE_DENIED';
    throw e;
  };
  Object.defineProperty(globalThis, 'require', fixed(require));`;
