import { Headers, Response } from 'undici';

/** How a fully received response is described. */
export interface BufferedResponseInit {
  readonly status: number;
  readonly statusText: string;
  /** Lowercase names, repeated headers as arrays; the `Headers` object is built on first access. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly url: string;
  readonly redirected: boolean;
}

/** A reason phrase the Response constructor accepts (anything else becomes ''). */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The peer's reason phrase when a Response can carry it, else ''. */
export function reasonPhrase(text: string): string {
  return REASON_PHRASE.test(text) ? text : '';
}

function copyToArrayBuffer(b: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(b.byteLength);
  new Uint8Array(out).set(b);
  return out;
}

/** True when `b` is the whole of its own ArrayBuffer (so handing that buffer over hands over exactly `b`). */
function ownsWholeBuffer(b: Uint8Array): boolean {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && !(b.buffer instanceof SharedArrayBuffer);
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
  /** The bytes are this response's alone (not shared with a clone): a read may hand them over. */
  #exclusive: boolean;
  #init: BufferedResponseInit;
  #headers: Headers | undefined;
  /** A plain Response that owns the body once a stream, a clone, a Blob or FormData is needed. */
  #real: Response | undefined;
  #used = false;

  /**
   * `bytes` become the response's: pass a buffer nobody else holds or writes (the hop copies the
   * body into a fresh one, which also frees the socket's read buffers).
   */
  constructor(bytes: Uint8Array, init: BufferedResponseInit, exclusive = true) {
    super(null, { status: init.status, statusText: reasonPhrase(init.statusText) });
    this.#bytes = bytes;
    this.#exclusive = exclusive;
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
        const own = this.#exclusive;
        return this.#read(
          (r) => r.arrayBuffer(),
          (b) => (own && ownsWholeBuffer(b) ? (b.buffer as ArrayBuffer) : copyToArrayBuffer(b)),
        );
      }),
      bytes: method(function (this: BufferedResponse) {
        const own = this.#exclusive;
        return this.#read(
          (r) => r.bytes(),
          (b) => (own && ownsWholeBuffer(b) ? new Uint8Array(b.buffer, 0, b.byteLength) : new Uint8Array(b)),
        );
      }),
      text: method(function (this: BufferedResponse) {
        return this.#read((r) => r.text(), utf8);
      }),
      json: method(function (this: BufferedResponse) {
        return this.#read(
          (r) => r.json(),
          (b) => JSON.parse(utf8(b)) as unknown,
        );
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
    for (const [name, value] of Object.entries(this.#init.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) {
        try {
          h.append(name, one);
        } catch {
          // A header undici's Headers cannot hold (the HTTP parser already refused the worst); skip it.
        }
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
    if (this.#real === undefined && this.#bytes !== null) {
      // Both now read the same bytes: neither may hand them over any more.
      this.#exclusive = false;
      return new BufferedResponse(this.#bytes, this.#init, false);
    }
    const copy = (this.#real as Response).clone();
    Object.defineProperty(copy, 'url', { value: this.#init.url });
    Object.defineProperty(copy, 'redirected', { value: this.#init.redirected });
    return copy;
  }
}
