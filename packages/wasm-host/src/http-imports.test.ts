import * as shim from '@bytecodealliance/preview2-shim';
import { describe, expect, it } from 'vitest';
import { HTTP_CHUNK, createHttpImports } from './http-imports.js';
import { thrown } from '../test/thrown.js';

const { InputStream, OutputStream } = shim.io.streams as unknown as {
  InputStream: new () => object;
  OutputStream: new () => object;
};
const IoError = (shim.io as unknown as { error: { Error: new (p: unknown) => object } }).error.Error;

/** wasi:http imports over a scripted broker that records every call (bodies as sizes). */
// The wasi:http resources as these tests drive them. The scripted broker answers at once, so
// every call returns its value (no promise).
interface OutgoingBody {
  write(): { blockingWriteAndFlush(buf: Uint8Array): void };
}
interface OutgoingRequest {
  body(): OutgoingBody;
  setMethod(m: { tag: string }): void;
  setScheme(s: { tag: string }): void;
  setAuthority(a: string): void;
  setPathWithQuery(p: string): void;
}
interface IncomingResponse {
  status(): number;
  headers(): { get(name: string): Uint8Array[] };
  consume(): { stream(): { blockingRead(len: bigint): Uint8Array } };
}
interface FutureResponse {
  get(): { tag: string; val: { tag: string; val: IncomingResponse } };
}
interface HttpTypes {
  OutgoingRequest: new (headers: object) => OutgoingRequest;
  Fields: new () => object;
  OutgoingBody: { finish(body: OutgoingBody): void };
  httpErrorCode(err: object): unknown;
}

function http(script: (op: string, payload: { id?: number; max?: number }) => unknown, maxRequestBodyBytes = 1 << 24) {
  const calls: [string, Record<string, unknown>][] = [];
  const imports = createHttpImports({
    InputStream,
    OutputStream,
    IoError,
    ready: () => undefined,
    maxRequestBodyBytes,
    call: (op, payload) => {
      const p = payload as Record<string, unknown>;
      const shown = { ...p };
      for (const k of ['body', 'data'] as const) if (p[k] instanceof Uint8Array) shown[k] = (p[k] as Uint8Array).length;
      calls.push([op, shown]);
      return script(op, p) as never;
    },
  });
  const t = imports.types as unknown as HttpTypes;
  const request = (method = 'post') => {
    const req = new t.OutgoingRequest(new t.Fields());
    req.setMethod({ tag: method });
    req.setScheme({ tag: 'HTTP' });
    req.setAuthority('peer.test:8080');
    req.setPathWithQuery('/echo');
    return req;
  };
  const handle = (imports.outgoingHandler as unknown as { handle(r: OutgoingRequest): FutureResponse }).handle;
  return { calls, t, request, handle };
}

describe('wasi:http imports: streamed bodies', () => {
  it('sends a small body with the start, in one call', () => {
    const { calls, t, request, handle } = http((op) =>
      op === 'http.start' ? { kind: 'ok', id: 1 } : { kind: 'head', status: 204, headers: [] },
    );
    const req = request();
    const body = req.body();
    body.write().blockingWriteAndFlush(new Uint8Array(10));
    const future = handle(req);
    t.OutgoingBody.finish(body);
    expect(future.get().val.val.status()).toBe(204);
    expect(calls).toEqual([
      ['http.start', { method: 'POST', url: 'http://peer.test:8080/echo', headers: [], end: true, body: 10 }],
      ['http.response', { id: 1 }],
    ]);
  });

  it('streams a body larger than one chunk in chunk-sized writes', () => {
    const { calls, t, request, handle } = http((op) =>
      op === 'http.start' ? { kind: 'ok', id: 3 } : { kind: 'ok', id: 3 },
    );
    const req = request();
    const body = req.body();
    const future = handle(req);
    const out = body.write();
    out.blockingWriteAndFlush(new Uint8Array(HTTP_CHUNK - 1));
    out.blockingWriteAndFlush(new Uint8Array(2)); // crosses one chunk: the request starts streaming
    out.blockingWriteAndFlush(new Uint8Array(HTTP_CHUNK * 2 + 5));
    t.OutgoingBody.finish(body);
    expect(future).toBeDefined();
    expect(calls).toEqual([
      [
        'http.start',
        { method: 'POST', url: 'http://peer.test:8080/echo', headers: [], end: false, body: HTTP_CHUNK + 1 },
      ],
      ['http.write', { id: 3, data: HTTP_CHUNK }],
      ['http.write', { id: 3, data: HTTP_CHUNK }],
      ['http.write', { id: 3, data: 5 }],
      ['http.end', { id: 3 }],
    ]);
  });

  it('reads the response body chunk by chunk and ends with closed', () => {
    let served = 0;
    const { calls, request, handle } = http((op, p) => {
      if (op === 'http.start') return { kind: 'ok', id: 2 };
      if (op === 'http.response') return { kind: 'head', status: 200, headers: [['content-type', 'text/plain']] };
      if (op === 'http.read') {
        if (served >= 3) return { kind: 'chunk', data: new Uint8Array(0), done: true };
        served++;
        return { kind: 'chunk', data: new Uint8Array(Math.min(p.max!, 1000)), done: false };
      }
      return { kind: 'ok', id: 2 };
    });
    const res = handle(request('get')).get().val.val;
    expect(new TextDecoder().decode(res.headers().get('content-type')[0])).toBe('text/plain');
    const stream = res.consume().stream();
    const sizes: number[] = [];
    for (;;) {
      const e = thrown(() => sizes.push(stream.blockingRead(BigInt(HTTP_CHUNK * 4)).length));
      if (e !== 'no error') {
        expect(e).toEqual({ tag: 'closed' });
        break;
      }
    }
    expect(sizes).toEqual([1000, 1000, 1000]);
    expect(calls.filter(([op]) => op === 'http.read').every(([, p]) => (p.max as number) <= HTTP_CHUNK)).toBe(true);
    expect(calls.at(-1)).toEqual(['http.close', { id: 2 }]);
  });

  it('fails the guest read with HTTP-response-body-size when the broker reports the cap', () => {
    const { t, request, handle } = http((op) => {
      if (op === 'http.start') return { kind: 'ok', id: 4 };
      if (op === 'http.response') return { kind: 'head', status: 200, headers: [] };
      return op === 'http.read'
        ? { kind: 'error', error: 'too-large', message: 'response exceeds 262144 bytes' }
        : { kind: 'ok', id: 4 };
    });
    const stream = handle(request('get')).get().val.val.consume().stream();
    const e = thrown(() => stream.blockingRead(100n)) as { tag: string; val: object };
    expect(e.tag).toBe('last-operation-failed');
    expect(t.httpErrorCode(e.val)).toEqual({ tag: 'HTTP-response-body-size', val: undefined });
  });

  it('refuses a request body above the cap while it is written, and a denial is HTTP-request-denied', () => {
    const capped = http(() => ({ kind: 'ok', id: 5 }), 100);
    const req = capped.request();
    const body = req.body();
    const future = capped.handle(req);
    // the write is swallowed (JS guests trap on a failed body write); nothing past the cap is sent
    expect(thrown(() => body.write().blockingWriteAndFlush(new Uint8Array(101)))).toBe('no error');
    expect(future.get().val).toEqual({ tag: 'err', val: { tag: 'HTTP-request-body-size', val: undefined } });
    expect(capped.calls).toEqual([]);
    const denied = http((op) =>
      op === 'http.start' ? { kind: 'ok', id: 6 } : { kind: 'error', error: 'denied', message: 'policy' },
    );
    expect(denied.handle(denied.request('get')).get()).toEqual({
      tag: 'ok',
      val: { tag: 'err', val: { tag: 'HTTP-request-denied' } },
    });
  });
});
