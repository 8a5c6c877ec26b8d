import { PassThrough, type Readable } from 'node:stream';
import type { EgressClient, EgressRawResponse } from '@trust/egress';
import type { Principal } from '@trust/core';
import type { BridgeHttpResult, BridgeHttpStart } from './net-protocol.js';

type HttpError = Extract<BridgeHttpResult, { kind: 'error' }>;

/** Maps an egress error to the bridge's HTTP error. */
export function classifyHttpError(e: unknown): Omit<HttpError, 'kind'> {
  const code = String((e as { code?: unknown })?.code ?? '');
  const message = String((e as Error)?.message ?? e);
  if (code === 'EGRESS_TIMEOUT' || code === 'EGRESS_ABORTED' || code === 'EGRESS_DNS_TIMEOUT')
    return { error: 'timeout', message };
  if (code === 'EGRESS_RESPONSE_TOO_LARGE' || code === 'EGRESS_HEADERS_TOO_LARGE')
    return { error: 'too-large', message };
  if (code === 'EGRESS_DNS_FAILED' || code === 'EGRESS_DNS_EMPTY') return { error: 'dns', message };
  if (code === 'EGRESS_CONNECT_FAILED') return { error: 'refused', message };
  if (code.startsWith('EGRESS_') || /DENIED/.test(code)) return { error: 'denied', message };
  return { error: 'other', message };
}

interface Exchange {
  /** The request body while it streams; absent when the whole body came with the start. */
  readonly body: PassThrough | undefined;
  readonly response: Promise<EgressRawResponse>;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number | undefined;
  reader: AsyncIterator<Buffer> | undefined;
  leftover: Buffer | undefined;
  done: boolean;
  failure: unknown;
}

/**
 * The main-thread side of a plugin's HTTP: one egress `request` per exchange (policy, address
 * guard, pinned connect, audit), with the request body fed from the guest's `http.write`
 * calls (back-pressured) and the response body handed out in pieces of at most `max` bytes.
 * egress's `maxResponseBytes` applies while the body streams, so an oversized response fails
 * the guest's read (`too-large`) and never buffers here.
 */
export function createHttpBroker(o: { client: EgressClient; principal: Principal; httpTimeoutMs?: number }) {
  const exchanges = new Map<number, Exchange>();
  let nextId = 1;

  const failed = (ex: Exchange, e: unknown): HttpError => {
    if (ex.signal?.aborted) return { kind: 'error', error: 'timeout', message: `request exceeded ${ex.timeoutMs} ms` };
    return { kind: 'error', ...classifyHttpError(e) };
  };

  function start(req: BridgeHttpStart): BridgeHttpResult {
    const limit = [req.timeoutMs, o.httpTimeoutMs].filter((x): x is number => typeof x === 'number');
    const timeoutMs = limit.length > 0 ? Math.min(...limit) : undefined;
    const signal = timeoutMs !== undefined ? AbortSignal.timeout(timeoutMs) : undefined;
    let body: PassThrough | undefined;
    let sent: Uint8Array | Readable | undefined = req.body;
    if (!req.end) {
      body = new PassThrough({ highWaterMark: 256 * 1024 });
      if (req.body) body.write(req.body);
      sent = body;
    }
    const response = o.client.request(
      req.url,
      {
        method: req.method,
        headers: req.headers.map(([k, v]) => [k, v] as [string, string]),
        ...(sent ? { body: sent as never } : {}),
        ...(signal ? { signal } : {}),
        redirect: 'manual',
      },
      { principal: o.principal, capability: 'http' },
    );
    const ex: Exchange = {
      body,
      response,
      signal,
      timeoutMs,
      reader: undefined,
      leftover: undefined,
      done: false,
      failure: undefined,
    };
    // a failed request stops the body feed; the error is reported by http.response
    response.catch((e: unknown) => {
      ex.failure = e;
      body?.destroy();
    });
    const id = nextId++;
    exchanges.set(id, ex);
    return { kind: 'ok', id };
  }

  async function write(ex: Exchange, data: Uint8Array): Promise<BridgeHttpResult> {
    const body = ex.body;
    if (!body || body.destroyed || body.writableEnded || ex.failure)
      return { kind: 'error', error: 'closed', message: 'the request is no longer sending' };
    if (!body.write(data)) {
      // back-pressure: wait until the connection takes more, the request fails, or it times out
      await new Promise<void>((resolve) => {
        const done = () => {
          body.off('drain', done);
          body.off('close', done);
          resolve();
        };
        body.once('drain', done);
        body.once('close', done);
      });
    }
    return ex.failure ? { kind: 'error', error: 'closed', message: 'the request failed' } : { kind: 'ok', id: 0 };
  }

  async function respond(ex: Exchange): Promise<BridgeHttpResult> {
    try {
      const res = await ex.response;
      const headers: [string, string][] = [];
      for (const [k, v] of Object.entries(res.headers)) {
        if (v === undefined) continue;
        for (const one of Array.isArray(v) ? v : [v]) headers.push([k, String(one)]);
      }
      ex.reader = res.body[Symbol.asyncIterator]();
      return { kind: 'head', status: res.statusCode, headers };
    } catch (e) {
      return failed(ex, e);
    }
  }

  async function read(ex: Exchange, max: number): Promise<BridgeHttpResult> {
    if (!ex.reader) return { kind: 'error', error: 'closed', message: 'no response yet' };
    let chunk = ex.leftover;
    ex.leftover = undefined;
    if (!chunk && !ex.done) {
      try {
        const next = await ex.reader.next();
        if (next.done) ex.done = true;
        else chunk = next.value;
      } catch (e) {
        ex.done = true;
        return failed(ex, e);
      }
    }
    if (!chunk) return { kind: 'chunk', data: new Uint8Array(0), done: true };
    const take = Math.max(1, max);
    if (chunk.length > take) {
      ex.leftover = chunk.subarray(take);
      chunk = chunk.subarray(0, take);
    }
    return { kind: 'chunk', data: new Uint8Array(chunk), done: false };
  }

  function close(id: number): void {
    const ex = exchanges.get(id);
    if (!ex) return;
    exchanges.delete(id);
    ex.body?.destroy();
    void ex.reader?.return?.();
    ex.response.then(
      (r) => r.body.destroy(),
      () => undefined,
    );
  }

  return {
    async handle(op: string, payload: unknown): Promise<BridgeHttpResult> {
      if (op === 'http.start') return start(payload as BridgeHttpStart);
      const p = payload as { id: number; data?: Uint8Array; max?: number };
      const ex = exchanges.get(p.id);
      if (!ex) return { kind: 'error', error: 'closed', message: 'no such request' };
      if (op === 'http.write') return write(ex, p.data ?? new Uint8Array(0));
      if (op === 'http.end') {
        ex.body?.end();
        return { kind: 'ok', id: p.id };
      }
      if (op === 'http.response') return respond(ex);
      if (op === 'http.read') return read(ex, p.max ?? 65536);
      if (op === 'http.close') {
        close(p.id);
        return { kind: 'ok', id: p.id };
      }
      return { kind: 'error', error: 'other', message: `unknown op ${op}` };
    },
    close() {
      for (const id of [...exchanges.keys()]) close(id);
    },
  };
}
