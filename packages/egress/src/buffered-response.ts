import { Headers, Response } from 'undici';

/** How a fully received response is described. */
export interface BufferedResponseInit {
  readonly status: number;
  readonly statusText: string;
  /** Name/value pairs as received; the `Headers` object is built on first access. */
  readonly rawHeaders: readonly (Buffer | string)[];
  readonly url: string;
  readonly redirected: boolean;
}

/** A reason phrase the Response constructor accepts (anything else becomes ''). */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

function toText(v: Buffer | string): string {
  return typeof v === 'string' ? v : v.toString('latin1');
}

function copyToArrayBuffer(b: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(b.byteLength);
  new Uint8Array(out).set(b);
  return out;
}

/** UTF-8 decode as fetch's `text()` does: a leading BOM is dropped, bad sequences become U+FFFD. */
function utf8(b: Uint8Array): string {
  const buf = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const start = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  return buf.toString('utf8', start);
}

function method(fn: (...args: never[]) => unknown): PropertyDescriptor {
  return { configurable: true, writable: true, enumerable: false, value: fn };
}

function bodyUsedError(): TypeError {
  return new TypeError('Body is unusable: Body has already been read');
}

/**
 * A WHATWG `Response` (an undici `Response` subclass, so `instanceof Response` holds) for a body
 * that was received in full: `arrayBuffer`, `bytes`, `text` and `json` read the bytes directly,
 * and the web stream, the `Headers` object and everything else are created only when used.
 * A Response built from bytes costs a ReadableStream even when nobody reads `body`; this one
 * does not, which is most of what a small fetch costs.
 */
export class BufferedResponse extends Response {
  #bytes: Uint8Array | null;
  #init: BufferedResponseInit;
  #headers: Headers | undefined;
  /** A plain Response that owns the body once a stream, a clone, a Blob or FormData is needed. */
  #real: Response | undefined;
  #used = false;

  constructor(bytes: Uint8Array, init: BufferedResponseInit) {
    super(null, { status: init.status, statusText: REASON_PHRASE.test(init.statusText) ? init.statusText : '' });
    this.#bytes = bytes;
    this.#init = init;
  }

  static {
    // These are accessors on Response.prototype; undici's types declare them as properties, so
    // they are redefined here rather than with `get` syntax.
    Object.defineProperties(BufferedResponse.prototype, {
      headers: {
        configurable: true,
        get(this: BufferedResponse) {
          return this.#lazyHeaders();
        },
      },
      url: {
        configurable: true,
        get(this: BufferedResponse) {
          return this.#init.url;
        },
      },
      redirected: {
        configurable: true,
        get(this: BufferedResponse) {
          return this.#init.redirected;
        },
      },
      body: {
        configurable: true,
        get(this: BufferedResponse) {
          return this.#delegate().body;
        },
      },
      bodyUsed: {
        configurable: true,
        get(this: BufferedResponse) {
          return this.#real !== undefined ? this.#real.bodyUsed : this.#used;
        },
      },
      // Methods too: the types declare them as properties of the body mixin.
      arrayBuffer: method(function (this: BufferedResponse) {
        return this.#read((r) => r.arrayBuffer(), copyToArrayBuffer);
      }),
      bytes: method(function (this: BufferedResponse) {
        return this.#read((r) => r.bytes(), (b) => new Uint8Array(b));
      }),
      text: method(function (this: BufferedResponse) {
        return this.#read((r) => r.text(), utf8);
      }),
      json: method(function (this: BufferedResponse) {
        return this.#read((r) => r.json(), (b) => JSON.parse(utf8(b)) as unknown);
      }),
      blob: method(function (this: BufferedResponse) {
        return this.#delegate().blob();
      }),
      formData: method(function (this: BufferedResponse) {
        return this.#delegate().formData();
      }),
    });
  }

  #lazyHeaders(): Headers {
    if (this.#headers !== undefined) return this.#headers;
    const h = new Headers();
    const raw = this.#init.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      try {
        h.append(toText(raw[i] as Buffer | string), toText(raw[i + 1] as Buffer | string));
      } catch {
        // A header undici's Headers cannot hold (the HTTP parser already refused the worst); skip it.
      }
    }
    this.#headers = h;
    return h;
  }

  /** The bytes, once: a second read is a TypeError, as with any Response. */
  #take(): Uint8Array {
    if (this.#used || this.#bytes === null) throw bodyUsedError();
    this.#used = true;
    const b = this.#bytes;
    this.#bytes = null;
    return b;
  }

  #delegate(): Response {
    if (this.#real === undefined) {
      const init = { status: this.status, statusText: this.statusText, headers: this.#lazyHeaders() };
      if (this.#used) {
        this.#real = new Response(new Uint8Array(0), init);
        this.#real.arrayBuffer().catch(() => {}); // disturbed, like a consumed fetch body
      } else {
        this.#real = new Response(this.#bytes, init);
        this.#bytes = null;
      }
    }
    return this.#real;
  }

  #read<T>(fromReal: (r: Response) => Promise<T>, fromBytes: (b: Uint8Array) => T): Promise<T> {
    if (this.#real !== undefined) return fromReal(this.#real);
    try {
      return Promise.resolve(fromBytes(this.#take()));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  override clone(): Response {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
    if (this.#real === undefined && this.#bytes !== null) return new BufferedResponse(this.#bytes, this.#init);
    const copy = (this.#real as Response).clone();
    Object.defineProperty(copy, 'url', { value: this.#init.url });
    Object.defineProperty(copy, 'redirected', { value: this.#init.redirected });
    return copy;
  }
}
