import { writeThroughStream } from './output-stream.js';
import { TOKEN } from './http-fields.js';
import { HTTP_CHUNK } from './http-exchange.js';
import type { Exchange } from './http-exchange.js';
import type { MaybePromise } from './maybe-async.js';

/** What the outgoing-request resources need of the instance. */
export interface OutgoingDeps {
  /** The shim's output stream class, which the body sink extends. */
  readonly OutputStream: new () => object;
  /** An always-ready pollable. */
  readonly ready: () => unknown;
  readonly maxRequestBodyBytes: number;
}

/** A `fields` resource as an outgoing request holds it. */
export interface HeaderFields {
  entriesList: [string, Uint8Array][];
}

/**
 * The outgoing half of `wasi:http/types` for one instance: `outgoing-request` and its
 * `outgoing-body` with the body's output stream. Body bytes are kept until the request starts,
 * then streamed to its {@link Exchange}; nothing past `maxRequestBodyBytes` leaves the worker.
 * `locked` is the instance's set of immutable fields (a request's headers join it).
 */
export function createOutgoingTypes(deps: OutgoingDeps, locked: WeakSet<object>) {
  const { ready } = deps;

  class BodySink extends writeThroughStream(deps.OutputStream, ready) {
    body: OutgoingBody;
    closed = false;
    constructor(body: OutgoingBody) {
      super();
      this.body = body;
    }
    checkWrite(): bigint {
      if (this.closed) throw { tag: 'closed' };
      return BigInt(HTTP_CHUNK);
    }
    override write(buf: Uint8Array): MaybePromise<void> {
      if (this.closed) throw { tag: 'closed' };
      return this.body.append(new Uint8Array(buf));
    }
  }

  class OutgoingBody {
    sink = new BodySink(this);
    taken = false;
    finished = false;
    size = 0;
    /** Written before the request started (or before `handle`): sent with the start. */
    pending: Uint8Array[] = [];
    pendingBytes = 0;
    exchange: Exchange | undefined;
    oversized = false;
    write(): BodySink {
      if (this.taken) throw undefined;
      this.taken = true;
      return this.sink;
    }
    append(buf: Uint8Array): MaybePromise<void> {
      if (this.oversized) return;
      this.size += buf.length;
      if (this.size > deps.maxRequestBodyBytes) {
        // Nothing past the cap leaves the worker: the request is aborted and its response is
        // HTTP-request-body-size. The write itself succeeds (into nothing), because JS guests
        // (StarlingMonkey) trap on a failed body write instead of reporting it.
        this.oversized = true;
        this.pending = [];
        this.pendingBytes = 0;
        this.exchange?.abort();
        return;
      }
      if (this.exchange?.started) return this.exchange.send(buf);
      this.pending.push(buf);
      this.pendingBytes += buf.length;
      if (this.exchange && this.pendingBytes > HTTP_CHUNK) return this.exchange.start(false);
    }
    takePending(): Uint8Array | undefined {
      if (this.pending.length === 0) return undefined;
      const all = new Uint8Array(Buffer.concat(this.pending));
      this.pending = [];
      this.pendingBytes = 0;
      return all;
    }
    static finish(body: OutgoingBody, trailers?: unknown): MaybePromise<void> {
      if (trailers) throw { tag: 'internal-error', val: 'trailers are not supported' };
      body.finished = true;
      body.sink.closed = true;
      const ex = body.exchange;
      if (ex) return ex.started ? ex.end() : ex.start(true);
    }
  }

  class OutgoingRequest {
    methodValue: { tag: string; val?: string } = { tag: 'get' };
    schemeValue: { tag: string; val?: string } | undefined;
    authorityValue: string | undefined;
    pathValue: string | undefined;
    headerFields: HeaderFields;
    bodyValue = new OutgoingBody();
    bodyRequested = false;
    constructor(headers: HeaderFields) {
      locked.add(headers);
      this.headerFields = headers;
    }
    body(): OutgoingBody {
      if (this.bodyRequested) throw undefined;
      this.bodyRequested = true;
      return this.bodyValue;
    }
    method() {
      return this.methodValue;
    }
    setMethod(m: { tag: string; val?: string }) {
      if (m.tag === 'other' && !TOKEN.test(m.val ?? '')) throw undefined;
      this.methodValue = m;
    }
    pathWithQuery() {
      return this.pathValue;
    }
    setPathWithQuery(p: string | undefined) {
      if (p !== undefined && !/^[A-Za-z0-9.\-_~!$&'()*+,;=:@%?/]*$/.test(p)) throw undefined;
      this.pathValue = p;
    }
    scheme() {
      return this.schemeValue;
    }
    setScheme(s: { tag: string; val?: string } | undefined) {
      this.schemeValue = s;
    }
    authority() {
      return this.authorityValue;
    }
    setAuthority(a: string | undefined) {
      if (a !== undefined && !/^[A-Za-z0-9.\-[\]:]*$/.test(a)) throw undefined;
      this.authorityValue = a;
    }
    headers(): HeaderFields {
      return this.headerFields;
    }
  }

  return { OutgoingBody, OutgoingRequest };
}
