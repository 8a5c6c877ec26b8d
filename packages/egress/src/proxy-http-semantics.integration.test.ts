import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStubResolver } from '@trust/testing';
import type { EgressPolicy } from '@trust/core';
import { createEgressProxy, type EgressProxy, type EgressProxyOptions } from './proxy.js';
import { rawClient, startRecordingUpstream, statuses, type RecordingUpstream } from './proxy-test-upstream.js';
import { injecting, memorySink, principal } from './test-fixtures.js';

// Regressions of the proxy against a hostile client, each with raw bytes against the real proxy
// and a loopback upstream that records every byte it receives.
const allowAll: EgressPolicy = { name: 'allow-all', authorizeHttp: () => ({ allow: true, rule: 'all' }) };
let up: RecordingUpstream;
const open: EgressProxy[] = [];
let audit = memorySink();

beforeAll(async () => {
  up = await startRecordingUpstream();
});
beforeEach(() => {
  up.reset();
  audit = memorySink();
});
afterAll(async () => {
  await Promise.all(open.map((p) => p.close()));
  await up.close();
});

async function start(extra: Partial<EgressProxyOptions> = {}): Promise<number> {
  const proxy = await createEgressProxy({
    policy: allowAll,
    guard: { resolve: createStubResolver({ 'public.test': ['127.0.0.1'], 'lan.test': ['10.0.0.1'] }) },
    principal,
    audit,
    listen: { host: '127.0.0.1', port: 0 },
    clientLimits: { idleTimeoutMs: 200 },
    ...extra,
  });
  open.push(proxy);
  return (proxy.address as { port: number }).port;
}

const origin = (): string => `http://public.test:${up.port}`;
const req = (method: string, path: string, headers = '', body = ''): string =>
  `${method} ${origin()}${path} HTTP/1.1\r\nHost: public.test\r\n${headers}\r\n${body}`;

describe('one request at a time per client connection', () => {
  it('pipelined requests are dispatched one after another and answered in order', async () => {
    const port = await start();
    let text = '';
    for (let i = 0; i < 20; i++) text += req('GET', `/slow-${i}`);
    const c = await rawClient(port, text);
    await c.waitFor('/slow-19');
    expect(up.maxInflight).toBe(1);
    const order = [...c.received().matchAll(/"path":"\/slow-(\d+)"/g)].map((m) => Number(m[1]));
    expect(order).toEqual([...Array(20).keys()]);
    c.socket.destroy();
  });

  it("nothing after a client's Connection: close is judged or dispatched", async () => {
    const port = await start();
    const c = await rawClient(port, req('GET', '/first', 'Connection: close\r\n') + req('GET', '/second'));
    const got = await c.closed;
    expect(statuses(got)).toEqual([200]);
    expect(up.raw()).toContain('/first');
    expect(up.raw()).not.toContain('/second');
    expect(audit.events).toHaveLength(1);
  });

  it("nothing after the proxy's own closing refusal is judged or dispatched", async () => {
    const port = await start();
    const c = await rawClient(port, `GET http://lan.test/ HTTP/1.1\r\nHost: lan.test\r\n\r\n${req('GET', '/after')}`);
    const got = await c.closed;
    expect(statuses(got)).toEqual([403]);
    expect(up.raw()).toBe('');
    expect(audit.events).toHaveLength(1);
  });
});

describe('TRACE and Max-Forwards', () => {
  it('TRACE is refused with 405 and a reason by default, nothing forwarded', async () => {
    const port = await start();
    const got = await (await rawClient(port, req('TRACE', '/t', 'Connection: close\r\n'))).closed;
    expect(statuses(got)).toEqual([405]);
    expect(got).toContain('x-trust-deny: EGRESS_METHOD_NOT_ALLOWED');
    expect(up.raw()).toBe('');
    expect(audit.events).toMatchObject([{ decision: 'deny', code: expect.toBeTrustCode('EGRESS_METHOD_NOT_ALLOWED') }]);
  });

  it('TRACE is refused on a route that injects a credential, even when allowed', async () => {
    const port = await start({
      allowTrace: true,
      policy: injecting('public.test', { authorization: 'Bearer s3cret' }),
    });
    const got = await (await rawClient(port, req('TRACE', '/t', 'Connection: close\r\n'))).closed;
    expect(statuses(got)).toEqual([405]);
    expect(got).not.toContain('s3cret');
    expect(up.raw()).toBe('');
  });

  it('TRACE with Max-Forwards: 0 is answered by the proxy, not forwarded', async () => {
    const port = await start({ allowTrace: true });
    const got = await (await rawClient(port, req('TRACE', '/t', 'Max-Forwards: 0\r\nConnection: close\r\n'))).closed;
    expect(statuses(got)[0]).toBe(200);
    expect(got).toContain('content-type: message/http');
    expect(up.raw()).toBe('');
  });

  it('OPTIONS honours Max-Forwards: 0 answers locally, 3 is forwarded as 2', async () => {
    const port = await start();
    const zero = await (await rawClient(port, req('OPTIONS', '/o', 'Max-Forwards: 0\r\nConnection: close\r\n'))).closed;
    expect(statuses(zero)).toEqual([200]);
    expect(zero.toLowerCase()).toContain('allow: get');
    expect(up.raw()).toBe('');
    await (await rawClient(port, req('OPTIONS', '/o', 'Max-Forwards: 3\r\nConnection: close\r\n'))).closed;
    expect(up.requests[0]?.headers['max-forwards']).toBe('2');
  });
});

describe('headers nominated by Connection are hop-by-hop', () => {
  it('Connection: close, Authorization drops Authorization; h2c HTTP2-Settings is dropped', async () => {
    const port = await start();
    const c = await rawClient(
      port,
      req(
        'GET',
        '/a',
        'Connection: x-hop, Authorization\r\nAuthorization: Basic c2VjcmV0\r\nX-Hop: 1\r\nX-Kept: 1\r\n',
      ) +
        req('GET', '/b', 'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n'),
    );
    await c.waitFor('"path":"/b"');
    c.socket.destroy();
    const raw = up.raw().toLowerCase();
    expect(raw).toContain('x-kept: 1');
    expect(raw).not.toContain('authorization');
    expect(raw).not.toContain('x-hop');
    expect(raw).not.toContain('http2-settings');
    expect(raw).not.toContain('upgrade');
  });
});

describe('header limits refuse, never truncate', () => {
  it.each([250, 2001])('%i header lines before Content-Length get 431, nothing forwarded', async (n) => {
    const port = await start();
    let lines = '';
    for (let i = 0; i < n; i++) lines += `x-${i}: 1\r\n`;
    const got = await (await rawClient(port, req('POST', '/p', `${lines}Content-Length: 5\r\n`, 'hello'))).closed;
    expect(statuses(got)).toEqual([431]);
    expect(got).toContain(`more than the limit of 200`);
    expect(up.raw()).toBe('');
  });
});

describe('Expect', () => {
  it('Expect: 100-continue gets 100 once allowed and the body arrives whole', async () => {
    const port = await start();
    const body = 'x'.repeat(100_000);
    const c = await rawClient(port, req('POST', '/up', `Expect: 100-continue\r\nContent-Length: ${body.length}\r\n`));
    await c.waitFor('100 Continue');
    c.socket.write(body);
    await c.waitFor('bodyBytes');
    expect(statuses(c.received())).toEqual([100, 200]);
    expect(c.received()).toContain(`"bodyBytes":${body.length}`);
    expect(up.raw().toLowerCase()).not.toContain('expect:');
    c.socket.destroy();
  });

  it('a denied request with Expect: 100-continue gets the refusal, never 100', async () => {
    const port = await start();
    const got = await (
      await rawClient(
        port,
        'POST http://lan.test/ HTTP/1.1\r\nHost: lan.test\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n',
      )
    ).closed;
    expect(statuses(got)).toEqual([403]);
  });

  it('another expectation gets 417 with a reason, audited', async () => {
    const port = await start();
    const got = await (await rawClient(port, req('POST', '/up', 'Expect: something-else\r\nContent-Length: 0\r\n')))
      .closed;
    expect(statuses(got)).toEqual([417]);
    expect(got).toContain('x-trust-deny: EGRESS_REQUEST_MALFORMED');
    expect(audit.events).toMatchObject([{ decision: 'deny', code: expect.toBeTrustCode('EGRESS_REQUEST_MALFORMED') }]);
    expect(up.raw()).toBe('');
  });
});

describe('bodies that fail to parse and HTTP/1.0 framing', () => {
  it('a chunked body that fails to parse is a 400 and a denial in the audit', async () => {
    const port = await start();
    const c = await rawClient(port, req('POST', '/up', 'Transfer-Encoding: chunked\r\n', '5\r\nhello\r\n'));
    await new Promise((r) => setTimeout(r, 50));
    c.socket.write('zz-not-a-size\r\n');
    const got = await c.closed;
    expect(statuses(got)).toEqual([400]);
    expect(got).toContain('chunk size is malformed');
    expect(audit.events).toHaveLength(1);
    expect(audit.events[0]).toMatchObject({ decision: 'deny', code: expect.toBeTrustCode('EGRESS_REQUEST_MALFORMED') });
  });

  it('HTTP/1.0 with Transfer-Encoding is answered 400 and the connection closed', async () => {
    const port = await start();
    const text =
      `POST ${origin()}/old HTTP/1.0\r\nHost: public.test\r\nConnection: keep-alive\r\n` +
      'Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n';
    const got = await (await rawClient(port, text)).closed;
    expect(statuses(got)).toEqual([400]);
    expect(got).toContain('HTTP/1.0');
    expect(up.raw()).toBe('');
  });
});
