/**
 * The JavaScript that runs inside the QuickJS isolate before agent code. It turns three host
 * functions (call, settle, log) into the `adf` bridge and a `console`, and then forgets them:
 * the agent code is compiled as the body of an inner function whose parameters shadow them.
 *
 * Nothing here is a security boundary by itself: the isolate holds no host object at all, and
 * every `adf.*` call is checked again on the host side. The prelude only makes the guest API
 * pleasant (promises, JSON values) and hard to confuse (frozen bridge, no prototype to pollute).
 */

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
  let body = code;
  if (entry.kind === 'function') {
    if (!isGuestIdentifier(entry.name)) throw new Error(`invalid entry name ${JSON.stringify(entry.name)}`);
    const argsLiteral = JSON.stringify('argsText' in entry ? entry.argsText : JSON.stringify(entry.args ?? null));
    const missing = `lambda entry ${entry.name} is not a function defined by this file`;
    body =
      `${code}\n;if (typeof ${entry.name} !== 'function') throw new TypeError('${missing}');\n` +
      `return await ${entry.name}(JSON.parse(${argsLiteral}));`;
  }
  return `(function (__call, __settle, __log) {
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
  const run = (async function (__call, __settle, __log) {
${body}
  });
  return run(undefined, undefined, undefined).then(
    (v) => {
      let s;
      try { s = toJson(v); } catch (e) {
        __settle(false, 'TypeError', 'result is not JSON-serialisable: ' + String(e && e.message));
        return;
      }
      __settle(true, s, '');
    },
    (e) => {
      const obj = e && typeof e === 'object';
      const name = obj && typeof e.name === 'string' ? e.name : 'Error';
      const msg = obj && 'message' in e ? String(e.message) : String(e);
      const code = obj && typeof e.code === 'string' ? e.code + ': ' : '';
      __settle(false, name, code + msg);
    },
  );
})`;
}
