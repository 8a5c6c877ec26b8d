import type { BridgeHttpResult } from './net-protocol.js';
import type { RequestOptions } from './http-request-options.js';
import { andThen, detach, type MaybePromise } from './maybe-async.js';

/** The largest piece of a body that crosses the bridge in one call. */
export const HTTP_CHUNK = 64 * 1024;

const dec = new TextDecoder();

/**
 * A call to the broker (`http.start`, `http.write`, `http.end`, `http.response`, `http.read`,
 * `http.close`): synchronous through a worker's bridge, a promise in-thread under JSPI.
 */
export type BrokerCall = (op: string, payload: unknown) => MaybePromise<BridgeHttpResult>;

/** What an exchange needs of the host: the broker call and the request body cap. */
export interface ExchangeDeps {
  readonly call: BrokerCall;
  readonly maxRequestBodyBytes: number;
}

/** What an exchange reads of the guest's outgoing request when it starts it. */
export interface OutgoingRequestState {
  readonly methodValue: { tag: string; val?: string };
  readonly schemeValue: { tag: string; val?: string } | undefined;
  readonly authorityValue: string | undefined;
  readonly pathValue: string | undefined;
  readonly headerFields: { readonly entriesList: readonly (readonly [string, Uint8Array])[] };
  readonly bodyValue: OutgoingBodyState;
}

/** What an exchange reads of the request's body. */
export interface OutgoingBodyState {
  readonly taken: boolean;
  readonly finished: boolean;
  readonly oversized: boolean;
  /** The bytes written before the request started, removed from the body. */
  takePending(): Uint8Array | undefined;
}

/**
 * One request in flight on the broker (id), from `handle` to the end of its response body.
 * The guest never sees it: its resources (body, response, body stream) hold one.
 */
export class Exchange {
  readonly deps: ExchangeDeps;
  request: OutgoingRequestState;
  options: RequestOptions | undefined;
  id = 0;
  started = false;
  /** The start failed: the response is this error. */
  failure: BridgeHttpResult | undefined;
  closed = false;
  sendFailed = false;
  constructor(deps: ExchangeDeps, request: OutgoingRequestState, options: RequestOptions | undefined) {
    this.deps = deps;
    this.request = request;
    this.options = options;
  }
  start(end: boolean): MaybePromise<void> {
    if (this.started) return;
    this.started = true;
    const req = this.request;
    if (req.bodyValue.oversized) {
      this.failure = {
        kind: 'error',
        error: 'body-too-large',
        message: `the request body exceeds ${this.deps.maxRequestBodyBytes} bytes`,
      };
      return;
    }
    const scheme =
      req.schemeValue?.tag === 'HTTP'
        ? 'http'
        : req.schemeValue?.tag === 'other'
          ? String(req.schemeValue.val).toLowerCase()
          : 'https';
    if (!req.authorityValue || req.pathValue === undefined) {
      this.failure = { kind: 'error', error: 'invalid-uri', message: 'the request has no authority or path' };
      return;
    }
    const method = req.methodValue.tag === 'other' ? String(req.methodValue.val) : req.methodValue.tag.toUpperCase();
    const headers = req.headerFields.entriesList.map(([k, v]) => [k, dec.decode(v)] as const);
    const timeoutMs = this.options?.overallTimeoutMs();
    const body = req.bodyValue.takePending();
    const started = this.deps.call('http.start', {
      method,
      url: `${scheme}://${req.authorityValue}${req.pathValue || '/'}`,
      headers,
      end,
      ...(body ? { body } : {}),
      ...(timeoutMs ? { timeoutMs } : {}),
    });
    return andThen(started, (r) => {
      if (r.kind === 'error') this.failure = r;
      else if (r.kind === 'ok') this.id = r.id;
    });
  }
  /**
   * Streams body bytes. Once the request has failed (denied, refused, aborted) the rest is
   * dropped and the response reports why: JS guests trap on a failed body write.
   */
  send(buf: Uint8Array): MaybePromise<void> {
    if (this.failure || this.closed || this.sendFailed || !this.id) return;
    const from = (o: number): MaybePromise<void> => {
      if (o >= buf.length) return;
      return andThen(this.deps.call('http.write', { id: this.id, data: buf.subarray(o, o + HTTP_CHUNK) }), (r) => {
        if (r.kind === 'error') this.sendFailed = true;
        else return from(o + HTTP_CHUNK);
      });
    };
    return from(0);
  }
  end(): MaybePromise<void> {
    if (this.id) return andThen(this.deps.call('http.end', { id: this.id }), () => undefined);
  }
  abort(): void {
    this.close();
    this.failure ??= { kind: 'error', error: 'body-too-large', message: 'the request body exceeded its limit' };
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    // the broker acts on the call as it arrives; nothing waits for its answer
    if (this.id) detach(this.deps.call('http.close', { id: this.id }));
  }
}
