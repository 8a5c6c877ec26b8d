/* eslint-disable @typescript-eslint/no-explicit-any */
import { writeThroughStream } from './output-stream.js';
import type { BridgeHttpRequest, BridgeHttpResult } from './net-protocol.js';

/**
 * A per-instance `wasi:http` (types + outgoing-handler) whose requests go to the host's egress
 * broker instead of the shim's own HTTP client. The request is sent when the guest first asks
 * for the response (by then it has written and finished the body); the whole response is
 * buffered (size-capped by the broker). A denial reaches the guest as
 * `error-code::HTTP-request-denied`.
 */
export interface HttpImportDeps {
  readonly InputStream: new () => any;
  readonly OutputStream: new () => any;
  /** An always-ready pollable. */
  readonly ready: () => unknown;
  readonly send: (req: BridgeHttpRequest) => BridgeHttpResult;
  readonly maxRequestBodyBytes: number;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const FORBIDDEN = new Set(['connection', 'keep-alive', 'host', 'proxy-connection', 'transfer-encoding', 'upgrade']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function createHttpImports(deps: HttpImportDeps): { types: Record<string, unknown>; outgoingHandler: Record<string, unknown> } {
  const { ready } = deps;
  const locked = new WeakSet<object>();

  class Fields {
    entriesList: [string, Uint8Array][] = [];
    static fromList(entries: [string, Uint8Array][]): Fields {
      const f = new Fields();
      for (const [k, v] of entries) f.append(k, v);
      return f;
    }
    get(name: string): Uint8Array[] {
      const n = name.toLowerCase();
      return this.entriesList.filter(([k]) => k.toLowerCase() === n).map(([, v]) => v);
    }
    has(name: string): boolean {
      return this.get(name).length > 0;
    }
    set(name: string, values: Uint8Array[]): void {
      this.check(name);
      this.delete(name);
      for (const v of values) this.entriesList.push([name, v]);
    }
    delete(name: string): void {
      if (locked.has(this)) throw { tag: 'immutable' };
      const n = name.toLowerCase();
      this.entriesList = this.entriesList.filter(([k]) => k.toLowerCase() !== n);
    }
    append(name: string, value: Uint8Array): void {
      this.check(name);
      this.entriesList.push([name, value]);
    }
    entries(): [string, Uint8Array][] {
      return this.entriesList.map(([k, v]) => [k, v]);
    }
    clone(): Fields {
      const f = new Fields();
      f.entriesList = this.entries();
      return f;
    }
    private check(name: string): void {
      if (locked.has(this)) throw { tag: 'immutable' };
      if (!TOKEN.test(name)) throw { tag: 'invalid-syntax' };
      if (FORBIDDEN.has(name.toLowerCase())) throw { tag: 'forbidden' };
    }
  }

  class BodySink extends writeThroughStream(deps.OutputStream, ready) {
    chunks: Uint8Array[] = [];
    size = 0;
    closed = false;
    checkWrite(): bigint {
      if (this.closed) throw { tag: 'closed' };
      return 65536n;
    }
    override write(buf: Uint8Array): void {
      if (this.closed) throw { tag: 'closed' };
      this.size += buf.length;
      if (this.size > deps.maxRequestBodyBytes) throw { tag: 'closed' };
      this.chunks.push(new Uint8Array(buf));
    }
  }

  class OutgoingBody {
    sink = new BodySink();
    taken = false;
    finished = false;
    write(): BodySink {
      if (this.taken) throw undefined;
      this.taken = true;
      return this.sink;
    }
    static finish(body: OutgoingBody, trailers?: unknown): void {
      if (trailers) throw { tag: 'internal-error', val: 'trailers are not supported' };
      body.finished = true;
      body.sink.closed = true;
    }
  }

  class RequestOptions {
    connect: bigint | undefined;
    firstByte: bigint | undefined;
    betweenBytes: bigint | undefined;
    connectTimeout() {
      return this.connect;
    }
    setConnectTimeout(d: bigint | undefined) {
      this.connect = d;
    }
    firstByteTimeout() {
      return this.firstByte;
    }
    setFirstByteTimeout(d: bigint | undefined) {
      this.firstByte = d;
    }
    betweenBytesTimeout() {
      return this.betweenBytes;
    }
    setBetweenBytesTimeout(d: bigint | undefined) {
      this.betweenBytes = d;
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

  class IncomingBodyStream extends deps.InputStream {
    data: Uint8Array;
    offset = 0;
    constructor(data: Uint8Array) {
      super();
      this.data = data;
    }
    read(len: bigint): Uint8Array {
      if (this.offset >= this.data.length) throw { tag: 'closed' };
      const end = Math.min(this.data.length, this.offset + Number(len));
      const out = this.data.slice(this.offset, end);
      this.offset = end;
      return out;
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
    constructor(data: Uint8Array) {
      this.streamValue = new IncomingBodyStream(data);
    }
    stream(): IncomingBodyStream {
      const s = this.streamValue;
      if (!s) throw undefined;
      this.streamValue = undefined;
      return s;
    }
    static finish(_body: IncomingBody): FutureTrailers {
      return new FutureTrailers();
    }
  }

  class IncomingResponse {
    statusValue: number;
    headerFields: Fields;
    bodyValue: IncomingBody | undefined;
    constructor(status: number, headers: Fields, body: Uint8Array) {
      this.statusValue = status;
      this.headerFields = headers;
      this.bodyValue = new IncomingBody(body);
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
    request: OutgoingRequest;
    options: RequestOptions | undefined;
    result: unknown;
    done = false;
    taken = false;
    constructor(request: OutgoingRequest, options: RequestOptions | undefined) {
      this.request = request;
      this.options = options;
    }
    subscribe() {
      return ready();
    }
    get() {
      if (this.taken) return { tag: 'err', val: undefined };
      if (!this.done) {
        this.result = perform(this.request, this.options);
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

  function perform(req: OutgoingRequest, options: RequestOptions | undefined): unknown {
    const scheme = req.schemeValue?.tag === 'HTTP' ? 'http' : req.schemeValue?.tag === 'other' ? String(req.schemeValue.val).toLowerCase() : 'https';
    if (!req.authorityValue || req.pathValue === undefined) return { tag: 'err', val: { tag: 'HTTP-request-URI-invalid' } };
    const method = req.methodValue.tag === 'other' ? String(req.methodValue.val) : req.methodValue.tag.toUpperCase();
    const headers = req.headerFields.entriesList.map(([k, v]) => [k, dec.decode(v)] as const);
    const body = req.bodyValue.sink.chunks.length > 0 ? concat(req.bodyValue.sink.chunks) : undefined;
    const ns = [options?.connect, options?.firstByte].filter((x): x is bigint => typeof x === 'bigint');
    const timeoutMs = ns.length > 0 ? Math.max(1, Number(ns.reduce((a, b) => (a < b ? a : b)) / 1_000_000n)) : undefined;
    const res = deps.send({ method, url: `${scheme}://${req.authorityValue}${req.pathValue || '/'}`, headers, ...(body ? { body } : {}), ...(timeoutMs ? { timeoutMs } : {}) });
    if (res.kind === 'ok') {
      const fields = new Fields();
      for (const [k, v] of res.headers) if (TOKEN.test(k)) fields.entriesList.push([k, enc.encode(v)]);
      locked.add(fields);
      return { tag: 'ok', val: new IncomingResponse(res.status, fields, res.body) };
    }
    const code =
      res.error === 'denied' ? { tag: 'HTTP-request-denied' }
      : res.error === 'timeout' ? { tag: 'connection-timeout' }
      : res.error === 'refused' ? { tag: 'connection-refused' }
      : res.error === 'dns' ? { tag: 'DNS-error', val: { rcode: undefined, infoCode: undefined } }
      : res.error === 'too-large' ? { tag: 'HTTP-response-body-size', val: undefined }
      : { tag: 'internal-error', val: res.message };
    return { tag: 'err', val: code };
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
      httpErrorCode: () => undefined,
    },
    outgoingHandler: {
      handle(request: OutgoingRequest, options?: RequestOptions) {
        return new FutureIncomingResponse(request, options);
      },
    },
  };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}
