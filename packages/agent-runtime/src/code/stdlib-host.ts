import { isUtf8 } from 'node:buffer';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { format as formatUrl, parse as parseUrl, resolve as resolveUrl } from 'node:url';
import { domainToASCII, domainToUnicode, fileURLToPath, pathToFileURL } from 'node:url';
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten';
import { guestModuleSource } from './stdlib/index.js';

/**
 * The host half of the code sandbox's standard library: pure functions over values copied out of
 * the isolate (strings, numbers, the bytes of an ArrayBuffer) that answer with new guest values.
 * No host object is ever handed in. Everything a guest module needs from Node (the CSPRNG, the SHA
 * family, the WHATWG URL parser, Buffer's encodings) is one `std(op, …)` call here.
 */

/** Most bytes one `crypto.getRandomValues` / `randomBytes` call may ask for (the Web Crypto limit). */
export const MAX_RANDOM_BYTES = 65_536;
/** Most timers (setTimeout/setInterval) one execution may have waiting at once. */
export const MAX_LIVE_TIMERS = 1_000;

const HASHES: Readonly<Record<string, string>> = Object.freeze({
  'sha-1': 'sha1',
  sha1: 'sha1',
  'sha-256': 'sha256',
  sha256: 'sha256',
  'sha-384': 'sha384',
  sha384: 'sha384',
  'sha-512': 'sha512',
  sha512: 'sha512',
  md5: 'md5',
});
const ENCODINGS = new Set(['utf8', 'hex', 'base64', 'base64url', 'latin1', 'ascii', 'utf16le']);
const URL_PARTS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port'] as const;
const URL_SETTABLE = new Set(['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname']);

/** What the standard library adds to one execution: its two host functions and their cleanup. */
export interface HostStd {
  /** `std(op, a, b, c)`: the synchronous operations (see {@link createHostStd}). */
  readonly std: QuickJSHandle;
  /** `sleep(ms)`: a promise the host resolves after `ms` (a timer's wait); never past the run. */
  readonly sleep: QuickJSHandle;
  /** Cancels every wait still pending (the run has ended); always safe, even on a poisoned engine. */
  cancel(): void;
  /** Cancels, then frees the two function handles. */
  dispose(): void;
}

class GuestError extends Error {
  constructor(
    readonly guestName: string,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * Creates the standard library's host functions for one execution. `afterWake` runs the guest's
 * pending jobs once a wait has resolved.
 */
export function createHostStd(vm: QuickJSContext, afterWake: () => void): HostStd {
  const waits = new Map<ReturnType<typeof setTimeout>, QuickJSDeferredPromise>();
  let disposed = false;
  const str = (h: QuickJSHandle | undefined) => (h !== undefined && vm.typeof(h) === 'string' ? vm.getString(h) : '');
  const num = (h: QuickJSHandle | undefined) => (h !== undefined && vm.typeof(h) === 'number' ? vm.getNumber(h) : NaN);
  const bytes = (h: QuickJSHandle | undefined): Buffer => {
    if (h === undefined) throw new GuestError('TypeError', 'expected an ArrayBuffer');
    const view = vm.getArrayBuffer(h);
    try {
      return Buffer.from(view.value); // a copy: nothing below keeps a view into the isolate
    } finally {
      view.dispose();
    }
  };
  const buffer = (b: Buffer) => vm.newArrayBuffer(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  const hashName = (alg: string) => {
    const h = HASHES[alg.toLowerCase()];
    if (!h) throw new GuestError('NotSupportedError', `digest algorithm ${JSON.stringify(alg)} is not supported`);
    return h;
  };
  const encoding = (e: string) => {
    const n = e.toLowerCase().replace('-', '');
    const name = n === 'binary' ? 'latin1' : n === 'ucs2' ? 'utf16le' : n;
    if (!ENCODINGS.has(name)) throw new GuestError('TypeError', `unknown encoding: ${e}`, 'ERR_UNKNOWN_ENCODING');
    return name as BufferEncoding;
  };
  const urlParts = (u: URL) => {
    const parts: Record<string, string> = {};
    for (const k of URL_PARTS) parts[k] = u[k];
    parts['pathname'] = u.pathname;
    parts['search'] = u.search;
    parts['hash'] = u.hash;
    return JSON.stringify(parts);
  };
  const newUrl = (input: string, base?: string) => {
    try {
      return base === undefined ? new URL(input) : new URL(input, base);
    } catch {
      throw new GuestError('TypeError', `Invalid URL: ${input.slice(0, 200)}`, 'ERR_INVALID_URL');
    }
  };

  const ops: Record<string, (a?: QuickJSHandle, b?: QuickJSHandle, c?: QuickJSHandle) => QuickJSHandle> = {
    random(a) {
      const n = num(a);
      if (!Number.isInteger(n) || n < 0 || n > MAX_RANDOM_BYTES)
        throw new GuestError('QuotaExceededError', `at most ${MAX_RANDOM_BYTES} random bytes per call`);
      return buffer(randomBytes(n));
    },
    uuid: () => vm.newString(randomUUID()),
    hash: (a, b) =>
      buffer(
        createHash(hashName(str(a)))
          .update(bytes(b))
          .digest(),
      ),
    hmac: (a, b, c) =>
      buffer(
        createHmac(hashName(str(a)), bytes(b))
          .update(bytes(c))
          .digest(),
      ),
    encode: (a, b) => buffer(Buffer.from(str(a), encoding(str(b)))),
    decode: (a, b) => vm.newString(bytes(a).toString(encoding(str(b)))),
    utf8valid: (a) => (isUtf8(bytes(a)) ? vm.true : vm.false),
    btoa(a) {
      const s = str(a);
      if (!/^[\u0000-\u00ff]*$/.test(s))
        throw new GuestError('InvalidCharacterError', 'btoa: the string contains characters outside of Latin-1');
      return vm.newString(Buffer.from(s, 'latin1').toString('base64'));
    },
    atob(a) {
      // The forgiving-base64 decode of the HTML standard.
      let s = str(a).replace(/[\t\n\f\r ]/g, '');
      if (s.length % 4 === 0) s = s.replace(/==?$/, '');
      if (s.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(s))
        throw new GuestError('InvalidCharacterError', 'atob: the string is not correctly encoded base64');
      return vm.newString(Buffer.from(s, 'base64').toString('latin1'));
    },
    url: (a, b) =>
      vm.newString(urlParts(newUrl(str(a), b !== undefined && vm.typeof(b) === 'string' ? str(b) : undefined))),
    urlset(a, b, c) {
      const u = newUrl(str(a));
      const key = str(b);
      if (!URL_SETTABLE.has(key)) throw new GuestError('TypeError', `URL.${key} cannot be set here`);
      if (key === 'href') return vm.newString(urlParts(newUrl(str(c))));
      (u as unknown as Record<string, string>)[key] = str(c);
      return vm.newString(urlParts(u));
    },
    urlsearch(a, b) {
      const u = newUrl(str(a));
      u.search = str(b);
      return vm.newString(urlParts(u));
    },
    urlhash(a, b) {
      const u = newUrl(str(a));
      u.hash = str(b);
      return vm.newString(urlParts(u));
    },
    unescape: (a) => vm.newString(Buffer.from(pctBytes(str(a))).toString('utf8')),
    toASCII: (a) => vm.newString(domainToASCII(str(a))),
    toUnicode: (a) => vm.newString(domainToUnicode(str(a))),
    legacyparse: (a, b, c) =>
      vm.newString(
        JSON.stringify({ ...parseUrl(str(a), vm.dump(b ?? vm.false) === true, vm.dump(c ?? vm.false) === true) }),
      ),
    legacyformat: (a) => vm.newString(formatUrl(JSON.parse(str(a)) as Parameters<typeof formatUrl>[0])),
    legacyresolve: (a, b) => vm.newString(resolveUrl(str(a), str(b))),
    fileurltopath(a) {
      try {
        return vm.newString(fileURLToPath(str(a)));
      } catch (e) {
        throw new GuestError('TypeError', (e as Error).message, (e as { code?: string }).code);
      }
    },
    pathtofileurl: (a) => vm.newString(pathToFileURL(str(a)).href),
    module(a) {
      const source = guestModuleSource(str(a));
      if (source === undefined) return vm.undefined;
      const r = vm.evalCode(source, `trust:${str(a)}.js`);
      if (r.error) {
        const e = vm.dump(r.error) as { message?: string };
        r.error.dispose();
        throw new GuestError('InternalError', `the built-in module ${str(a)} failed to load: ${e?.message}`);
      }
      return r.value;
    },
  };

  const std = vm.newFunction('std', (opH, a, b, c) => {
    const op = Object.hasOwn(ops, str(opH)) ? ops[str(opH)] : undefined;
    try {
      if (!op) throw new GuestError('TypeError', `unknown standard-library operation ${str(opH)}`);
      return op(a, b, c);
    } catch (e) {
      const err = e instanceof GuestError ? e : new GuestError('Error', (e as Error)?.message ?? String(e));
      const h = vm.newError({ name: err.guestName, message: err.message });
      if (err.code) vm.setProp(h, 'code', vm.newString(err.code));
      return { error: h };
    }
  });

  const sleep = vm.newFunction('sleep', (msH) => {
    if (disposed || waits.size >= MAX_LIVE_TIMERS)
      return {
        error: vm.newError({ name: 'RangeError', message: `more than ${MAX_LIVE_TIMERS} timers waiting at once` }),
      };
    const deferred = vm.newPromise();
    const ms = Math.min(Math.max(0, Number.isFinite(num(msH)) ? num(msH) : 0), 2 ** 31 - 1);
    const t = setTimeout(() => {
      waits.delete(t);
      if (disposed) return;
      deferred.resolve();
      deferred.dispose();
      afterWake();
    }, ms);
    waits.set(t, deferred);
    return deferred.handle;
  });

  return {
    std,
    sleep,
    cancel() {
      disposed = true;
      for (const t of waits.keys()) clearTimeout(t);
    },
    dispose() {
      this.cancel();
      for (const d of waits.values()) d.dispose();
      waits.clear();
      std.dispose();
      sleep.dispose();
    },
  };
}

/** `%XX` escapes to bytes, leniently (a `%` not followed by two hex digits stays as it is). */
function pctBytes(s: string): Uint8Array {
  const raw = Buffer.from(s, 'utf8');
  const out = new Uint8Array(raw.length);
  let n = 0;
  const hex = (c: number) =>
    c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === 37 && i + 2 < raw.length + 0 && hex(raw[i + 1] ?? 0) >= 0 && hex(raw[i + 2] ?? 0) >= 0) {
      out[n++] = hex(raw[i + 1]!) * 16 + hex(raw[i + 2]!);
      i += 2;
    } else out[n++] = c;
  }
  return out.subarray(0, n);
}
