/* eslint-disable @typescript-eslint/no-explicit-any */
import { writeThroughStream } from './output-stream.js';
import type { BridgeHttpResult } from './net-protocol.js';
import { TOKEN, createFieldsClass, errorCode } from './http-fields.js';
import { RequestOptions } from './http-request-options.js';

/**
 * A per-instance `wasi:http` (types + outgoing-handler) whose requests go to the host's egress
 * broker instead of the shim's own HTTP client. Bodies stream in both directions in chunks of
 * at most `HTTP_CHUNK` bytes, one bridge call each:
 * - the request starts (`http.start`) when the guest has handed it to `handle` and then finishes
 *   its body, or writes more than one chunk, or asks for the response; a small body therefore
 *   travels with the start, a large one follows in `http.write` calls (`http.end` closes it);
 * - the response (`http.response`) carries status and headers; the body is read with
 *   `http.read` as the guest reads its stream, and the broker enforces the size cap while it
 *   streams: an oversized response fails the guest's read with `HTTP-response-body-size`.
 * A denial reaches the guest as `error-code::HTTP-request-denied`.
 */
export interface HttpImportDeps {
  readonly InputStream: new () => any;
  readonly OutputStream: new () => any;
  /** `wasi:io/error`'s error resource (guest-visible stream errors carry one). */
  readonly IoError: new (payload: unknown) => any;
  /** An always-ready pollable. */
  readonly ready: () => unknown;
  /** A synchronous call to the broker (`http.start`, `http.write`, `http.end`, `http.response`, `http.read`, `http.close`). */
  readonly call: (op: string, payload: unknown) => BridgeHttpResult;
  readonly maxRequestBodyBytes: number;
}

/** The largest piece of a body that crosses the bridge in one call. */
export const HTTP_CHUNK = 64 * 1024;

const enc = new TextEncoder();
const dec = new TextDecoder();

export function createHttpImports(deps: HttpImportDeps): { types: Record<string, unknown>; outgoingHandler: Record<string, unknown> } {
  const { ready } = deps;

  const { Fields, locked } = createFieldsClass();
  type Fields = InstanceType<typeof Fields>;

  /** Maps a guest-visible io error to its wasi:http error code (`http-error-code`). */
  const errorCodes = new WeakMap<object, unknown>();
  const streamError = (code: unknown, message: string) => {
    const err = new deps.IoError(message);
    errorCodes.set(err, code);
    return { tag: 'last-operation-failed', val: err };
  };

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
    override write(buf: Uint8Array): void {
      if (this.closed) throw { tag: 'closed' };
      this.body.append(new Uint8Array(buf));
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
    append(buf: Uint8Array): void {
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
      if (this.exchange && this.pendingBytes > HTTP_CHUNK) this.exchange.start(false);
    }
    takePending(): Uint8Array | undefined {
      if (this.pending.length === 0) return undefined;
      const all = new Uint8Array(Buffer.concat(this.pending));
      this.pending = [];
      this.pendingBytes = 0;
      return all;
    }
    static finish(body: OutgoingBody, trailers?: unknown): void {
      if (trailers) throw { tag: 'internal-error', val: 'trailers are not supported' };
      body.finished = true;
      body.sink.closed = true;
      const ex = body.exchange;
      if (ex) {
        if (ex.started) ex.end();
        else ex.start(true);
      }
    }
  }

  class OutgoingRequest {
    methodValue: { tag: string; val?: string } = { tag: 'get' };
    schemeValue: { tag: string; val?: string } | undefined;
    authorityValue: string | undefined;
    pathValue: string | undefined;
    headerFields: Fields;
    bodyValue = new OutgoingBody();
    bodyRequested = false;
    constructor(headers: Fields) {
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
    headers(): Fields {
      return this.headerFields;
    }
  }

  /** One request in flight on the broker (id), from `handle` to the end of its response body. */
  class Exchange {
    request: OutgoingRequest;
    options: RequestOptions | undefined;
    id = 0;
    started = false;
    /** The start failed: the response is this error. */
    failure: BridgeHttpResult | undefined;
    closed = false;
    sendFailed = false;
    constructor(request: OutgoingRequest, options: RequestOptions | undefined) {
      this.request = request;
      this.options = options;
    }
    start(end: boolean): void {
      if (this.started) return;
      this.started = true;
      const req = this.request;
      if (req.bodyValue.oversized) {
        this.failure = { kind: 'error', error: 'body-too-large', message: `the request body exceeds ${deps.maxRequestBodyBytes} bytes` };
        return;
      }
      const scheme = req.schemeValue?.tag === 'HTTP' ? 'http' : req.schemeValue?.tag === 'other' ? String(req.schemeValue.val).toLowerCase() : 'https';
      if (!req.authorityValue || req.pathValue === undefined) {
        this.failure = { kind: 'error', error: 'invalid-uri', message: 'the request has no authority or path' };
        return;
      }
      const method = req.methodValue.tag === 'other' ? String(req.methodValue.val) : req.methodValue.tag.toUpperCase();
      const headers = req.headerFields.entriesList.map(([k, v]) => [k, dec.decode(v)] as const);
      const timeoutMs = this.options?.overallTimeoutMs();
      const body = req.bodyValue.takePending();
      const r = deps.call('http.start', { method, url: `${scheme}://${req.authorityValue}${req.pathValue || '/'}`, headers, end, ...(body ? { body } : {}), ...(timeoutMs ? { timeoutMs } : {}) });
      if (r.kind === 'error') this.failure = r;
      else if (r.kind === 'ok') this.id = r.id;
    }
    /**
     * Streams body bytes. Once the request has failed (denied, refused, aborted) the rest is
     * dropped and the response reports why: JS guests trap on a failed body write.
     */
    send(buf: Uint8Array): void {
      if (this.failure || this.closed || this.sendFailed || !this.id) return;
      for (let o = 0; o < buf.length; o += HTTP_CHUNK) {
        const r = deps.call('http.write', { id: this.id, data: buf.subarray(o, o + HTTP_CHUNK) });
        if (r.kind === 'error') {
          this.sendFailed = true;
          return;
        }
      }
    }
    end(): void {
      if (this.id) deps.call('http.end', { id: this.id });
    }
    abort(): void {
      this.close();
      this.failure ??= { kind: 'error', error: 'body-too-large', message: 'the request body exceeded its limit' };
    }
    close(): void {
      if (this.closed) return;
      this.closed = true;
      if (this.id) deps.call('http.close', { id: this.id });
    }
  }

  class IncomingBodyStream extends deps.InputStream {
    exchange: Exchange;
    done = false;
    constructor(exchange: Exchange) {
      super();
      this.exchange = exchange;
    }
    /** Waits for at least one byte (the guest's pollable is always ready, so a non-blocking read that returned nothing would spin). */
    read(len: bigint): Uint8Array {
      if (this.done || this.exchange.closed) throw { tag: 'closed' };
      if (len === 0n) return new Uint8Array(0);
      const r = deps.call('http.read', { id: this.exchange.id, max: Math.min(Number(len), HTTP_CHUNK) });
      if (r.kind === 'error') {
        this.done = true;
        this.exchange.close();
        throw streamError(errorCode(r), r.message);
      }
      if (r.kind !== 'chunk') throw { tag: 'closed' };
      if (r.done && r.data.length === 0) {
        this.done = true;
        this.exchange.close();
        throw { tag: 'closed' };
      }
      if (r.done) this.done = true;
      return r.data;
    }
    blockingRead(len: bigint): Uint8Array {
      return this.read(len);
    }
    skip(len: bigint): bigint {
      return BigInt(this.read(len).length);
    }
    blockingSkip(len: bigint): bigint {
      return this.skip(len);
    }
    subscribe(): unknown {
      return ready();
    }
    [Symbol.dispose](): void {
      this.exchange.close();
    }
  }

  class FutureTrailers {
    taken = false;
    subscribe() {
      return ready();
    }
    get() {
      if (this.taken) return { tag: 'err', val: undefined };
      this.taken = true;
      return { tag: 'ok', val: { tag: 'ok', val: undefined } };
    }
  }

  class IncomingBody {
    streamValue: IncomingBodyStream | undefined;
    exchange: Exchange;
    constructor(exchange: Exchange) {
      this.exchange = exchange;
      this.streamValue = new IncomingBodyStream(exchange);
    }
    stream(): IncomingBodyStream {
      const s = this.streamValue;
      if (!s) throw undefined;
      this.streamValue = undefined;
      return s;
    }
    static finish(body: IncomingBody): FutureTrailers {
      body.exchange.close();
      return new FutureTrailers();
    }
  }

  class IncomingResponse {
    statusValue: number;
    headerFields: Fields;
    bodyValue: IncomingBody | undefined;
    constructor(status: number, headers: Fields, exchange: Exchange) {
      this.statusValue = status;
      this.headerFields = headers;
      this.bodyValue = new IncomingBody(exchange);
    }
    status() {
      return this.statusValue;
    }
    headers() {
      return this.headerFields;
    }
    consume(): IncomingBody {
      const b = this.bodyValue;
      if (!b) throw undefined;
      this.bodyValue = undefined;
      return b;
    }
  }

  class FutureIncomingResponse {
    exchange: Exchange;
    result: unknown;
    done = false;
    taken = false;
    constructor(exchange: Exchange) {
      this.exchange = exchange;
    }
    subscribe() {
      return ready();
    }
    get() {
      if (this.taken) return { tag: 'err', val: undefined };
      if (!this.done) {
        this.result = respond(this.exchange);
        this.done = true;
      }
      this.taken = true;
      return { tag: 'ok', val: this.result };
    }
  }

  class Unsupported {
    constructor() {
      throw new Error('wasi:http incoming handlers are not supported by @trust/wasm-host');
    }
  }

  function respond(ex: Exchange): unknown {
    // a body the guest never took has nothing to send; one it took but did not finish streams on
    const body = ex.request.bodyValue;
    ex.start(!body.taken || body.finished);
    const res = ex.failure ?? deps.call('http.response', { id: ex.id });
    if (res.kind === 'head') {
      const fields = new Fields();
      for (const [k, v] of res.headers) if (TOKEN.test(k)) fields.entriesList.push([k, enc.encode(v)]);
      locked.add(fields);
      return { tag: 'ok', val: new IncomingResponse(res.status, fields, ex) };
    }
    ex.close();
    return { tag: 'err', val: res.kind === 'error' ? errorCode(res) : { tag: 'internal-error', val: 'unexpected broker answer' } };
  }

  return {
    types: {
      Fields,
      FutureIncomingResponse,
      FutureTrailers,
      IncomingBody,
      IncomingRequest: Unsupported,
      IncomingResponse,
      OutgoingBody,
      OutgoingRequest,
      OutgoingResponse: Unsupported,
      ResponseOutparam: Unsupported,
      RequestOptions,
      httpErrorCode: (err: object) => errorCodes.get(err),
    },
    outgoingHandler: {
      handle(request: OutgoingRequest, options?: RequestOptions) {
        const exchange = new Exchange(request, options);
        const body = request.bodyValue;
        body.exchange = exchange;
        // a body finished before handle() goes out with the start; a large one starts streaming now
        if (body.finished) exchange.start(true);
        else if (body.pendingBytes > HTTP_CHUNK) exchange.start(false);
        return new FutureIncomingResponse(exchange);
      },
    },
  };
}
