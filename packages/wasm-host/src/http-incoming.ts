import type { BridgeHttpResult } from './net-protocol.js';
import { TOKEN, errorCode } from './http-fields.js';
import type { createFieldsClass } from './http-fields.js';
import { HTTP_CHUNK } from './http-exchange.js';
import type { BrokerCall, Exchange } from './http-exchange.js';
import { readThroughStream } from './input-stream.js';
import { andThen, type MaybePromise } from './maybe-async.js';

/** What the incoming-response resources need of the instance. */
export interface IncomingDeps {
  /** The shim's input stream class, which the body stream extends. */
  readonly InputStream: new () => object;
  /** `wasi:io/error`'s error resource (guest-visible stream errors carry one). */
  readonly IoError: new (
    payload: unknown,
  ) => object;
  /** An always-ready pollable. */
  readonly ready: () => unknown;
  /** A call to the broker (`http.response`, `http.read`): synchronous, or a promise under JSPI. */
  readonly call: BrokerCall;
}

const enc = new TextEncoder();

/**
 * The incoming half of `wasi:http/types` for one instance: `future-incoming-response`,
 * `incoming-response`, `incoming-body` with its input stream, and `future-trailers`. The
 * response head comes from `http.response` when the guest first asks for it; the body is read
 * with `http.read` as the guest reads its stream (the broker enforces the size cap while it
 * streams). `fields` is the instance's `fields` class and its set of immutable fields.
 */
export function createIncomingTypes(deps: IncomingDeps, fields: ReturnType<typeof createFieldsClass>) {
  const { ready } = deps;
  const { Fields, locked } = fields;
  type Fields = InstanceType<typeof Fields>;

  /** Maps a guest-visible io error to its wasi:http error code (`http-error-code`). */
  const errorCodes = new WeakMap<object, unknown>();
  const streamError = (code: unknown, message: string) => {
    const err = new deps.IoError(message);
    errorCodes.set(err, code);
    return { tag: 'last-operation-failed', val: err };
  };

  class IncomingBodyStream extends readThroughStream(deps.InputStream, ready) {
    exchange: Exchange;
    done = false;
    constructor(exchange: Exchange) {
      super();
      this.exchange = exchange;
    }
    /**
     * Waits for at least one byte (the guest's pollable is always ready, so a non-blocking read
     * that returned nothing would spin).
     */
    override read(len: bigint): MaybePromise<Uint8Array> {
      if (this.done || this.exchange.closed) throw { tag: 'closed' };
      if (len === 0n) return new Uint8Array(0);
      const max = Math.min(Number(len), HTTP_CHUNK);
      return andThen(deps.call('http.read', { id: this.exchange.id, max }), (r) => this.received(r));
    }
    received(r: BridgeHttpResult): Uint8Array {
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
    taken = false;
    constructor(exchange: Exchange) {
      this.exchange = exchange;
    }
    subscribe() {
      return ready();
    }
    get(): MaybePromise<{ tag: string; val: unknown }> {
      if (this.taken) return { tag: 'err', val: undefined };
      return andThen(respond(this.exchange), (result) => {
        this.taken = true;
        return { tag: 'ok', val: result };
      });
    }
  }

  function respond(ex: Exchange): MaybePromise<unknown> {
    // a body the guest never took has nothing to send; one it took but did not finish streams on
    const body = ex.request.bodyValue;
    const started = ex.start(!body.taken || body.finished);
    const head = andThen(started, () => ex.failure ?? deps.call('http.response', { id: ex.id }));
    return andThen(head, (res) => toResponse(ex, res));
  }

  function toResponse(ex: Exchange, res: BridgeHttpResult): unknown {
    if (res.kind === 'head') {
      const fields = new Fields();
      for (const [k, v] of res.headers) if (TOKEN.test(k)) fields.entriesList.push([k, enc.encode(v)]);
      locked.add(fields);
      return { tag: 'ok', val: new IncomingResponse(res.status, fields, ex) };
    }
    ex.close();
    return {
      tag: 'err',
      val: res.kind === 'error' ? errorCode(res) : { tag: 'internal-error', val: 'unexpected broker answer' },
    };
  }

  return {
    FutureIncomingResponse,
    FutureTrailers,
    IncomingBody,
    IncomingResponse,
    /** The wasi:http error code behind a stream error this instance raised. */
    httpErrorCode: (err: object) => errorCodes.get(err),
  };
}
