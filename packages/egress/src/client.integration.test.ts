import { rejectionOf } from '@trust/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import type { EgressPolicy } from '@trust/core';
import { request } from 'undici';
import { createEgressClient } from './client.js';
import { createEgressDispatcher } from './dispatcher.js';
import { allowAll, codeOf, injecting, memorySink, principal } from './test-fixtures.js';

import type { Deny } from '@trust/core';
// A policy's own deny code, which the type system does not know: JS policies may return one.
type OwnCode = Deny['code'];

let peer: Peer;
let origin: string; // http://public.test:<port>  (public.test → 127.0.0.1 through the stub resolver)
const resolver = () =>
  createStubResolver({
    'public.test': ['127.0.0.1'],
    'other.test': ['127.0.0.1'],
    'lan.test': ['192.168.1.10'],
    'mixed.test': ['127.0.0.1', '10.0.0.1'],
  });

beforeAll(async () => {
  peer = await startPeer({
    routes: {
      '/echo': { kind: 'echo' },
      '/rel': { kind: 'redirect', status: 302, location: 'echo?from=rel' },
      '/loop': { kind: 'redirect', status: 302, location: '/loop' },
      '/to-private': { kind: 'redirect', status: 302, location: 'http://10.0.0.5/' },
      '/to-lan': { kind: 'redirect', status: 301, location: 'http://lan.test/' },
      '/to-metadata': { kind: 'redirect', status: 307, location: 'http://169.254.169.254/latest/meta-data/' },
      '/to-file': { kind: 'redirect', status: 302, location: 'file:///etc/passwd' },
      '/r303': { kind: 'redirect', status: 303, location: '/echo' },
      '/r302': { kind: 'redirect', status: 302, location: '/echo' },
      '/r307': { kind: 'redirect', status: 307, location: '/echo' },
      '/r308': { kind: 'redirect', status: 308, location: '/echo' },
      '/stall': { kind: 'stall' },
      '/slow-headers': { kind: 'slow-headers', intervalMs: 40 },
      '/slow-body': { kind: 'slow-body', intervalMs: 2000 },
      '/huge': { kind: 'huge-body', bytes: 2_000_000 },
      '/huge-declared': { kind: 'huge-body', bytes: 2_000_000, declareLength: true },
      '/huge-headers': { kind: 'huge-headers', bytes: 100_000 },
    },
  });
  origin = `http://public.test:${peer.httpPort}`;
  await peer.route('/to-other', { kind: 'redirect', status: 302, location: `http://other.test:${peer.httpPort}/echo` });
  await peer.route('/to-same', { kind: 'redirect', status: 302, location: `/echo` });
  for (let i = 0; i < 8; i++) await peer.route(`/hop${i}`, { kind: 'redirect', status: 302, location: `/hop${i + 1}` });
  await peer.route('/hop8', { kind: 'echo' });
});
afterAll(async () => peer.close());

type Echo = { method: string; path: string; headers: Record<string, string>; body: string };

describe('guarded fetch against a real peer (child process)', () => {
  it('fetches through the pinned connector and audits resolved and dialled addresses', async () => {
    const audit = memorySink();
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() }, audit });
    const res = await client.fetch(`${origin}/echo?token=abc123`, undefined, { principal });
    expect(res.status).toBe(200);
    const echo = (await res.json()) as Echo;
    expect(echo.path).toBe('/echo?token=abc123');
    expect(echo.headers.host).toBe(`public.test:${peer.httpPort}`);
    expect(audit.events).toHaveLength(1);
    const ev = audit.events[0]!;
    expect(ev).toMatchObject({ action: 'egress.http', decision: 'allow', principal, rule: 'allow-all' });
    expect(ev.target).toBe(`${origin}/echo?token=REDACTED`);
    expect(ev.details).toMatchObject({ resolved: ['127.0.0.1'], dialled: '127.0.0.1', status: 200, method: 'GET' });
    expect(audit.json()).not.toContain('abc123');
    await client.close();
  });

  it('injects policy headers that reach the peer; the secret never reaches the audit', async () => {
    const audit = memorySink();
    const policy = injecting('public.test', {
      authorization: 'Bearer SECRET-INJECTED-42',
      'x-api-key': 'KEY-SECRET-77',
    });
    const client = createEgressClient({ policy, guard: { resolve: resolver() }, audit });
    const res = await client.fetch(`${origin}/r302`, { headers: { cookie: 'session=COOKIE-SECRET' } }, { principal });
    const echo = (await res.json()) as Echo;
    expect(echo.headers.authorization).toBe('Bearer SECRET-INJECTED-42');
    expect(echo.headers['x-api-key']).toBe('KEY-SECRET-77');
    expect(policy.calls).toHaveLength(2); // every hop asks the policy
    const log = audit.json();
    for (const secret of ['SECRET-INJECTED-42', 'KEY-SECRET-77', 'COOKIE-SECRET']) expect(log).not.toContain(secret);
    expect(audit.events).toHaveLength(2);
    await client.close();
  });

  it('follows a relative Location', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() } });
    const res = await client.fetch(`${origin}/rel`, undefined, { principal });
    expect(((await res.json()) as Echo).path).toBe('/echo?from=rel');
    expect(res.redirected).toBe(true);
    expect(res.url).toBe(`${origin}/echo?from=rel`);
    await client.close();
  });

  it.each([
    ['/to-private', 'EGRESS_PRIVATE_ADDRESS'],
    ['/to-lan', 'EGRESS_PRIVATE_ADDRESS'],
    ['/to-metadata', 'EGRESS_METADATA'],
    ['/to-file', 'EGRESS_REDIRECT_SCHEME'],
  ])('refuses a public→blocked redirect %s with %s', async (path, code) => {
    const audit = memorySink();
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() }, audit });
    expect(await codeOf(client.fetch(`${origin}${path}`, undefined, { principal }))).toBe(code);
    expect(audit.events.map((e) => e.decision)).toEqual(['allow', 'deny']);
    expect(audit.events[1]!.code).toBe(code);
    await client.close();
  });

  it('stops a redirect loop and a long chain at the hop limit', async () => {
    const client = createEgressClient({
      policy: allowAll,
      guard: { resolve: resolver() },
      limits: { maxRedirects: 3 },
    });
    await peer.clear();
    expect(await codeOf(client.fetch(`${origin}/loop`, undefined, { principal }))).toBeTrustCode(
      'EGRESS_TOO_MANY_REDIRECTS',
    );
    expect((await peer.requests()).length).toBe(4);
    expect(await codeOf(client.fetch(`${origin}/hop0`, undefined, { principal }))).toBeTrustCode(
      'EGRESS_TOO_MANY_REDIRECTS',
    );
    const five = createEgressClient({ policy: allowAll, guard: { resolve: resolver() }, limits: { maxRedirects: 8 } });
    expect((await five.fetch(`${origin}/hop0`, undefined, { principal })).status).toBe(200);
    await client.close();
    await five.close();
  });

  it(
    'drops Authorization, Cookie and Proxy-Authorization when the ' + 'origin changes, keeps them on the same origin',
    async () => {
      const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() } });
      const headers = {
        authorization: 'Bearer caller',
        cookie: 'a=b',
        'proxy-authorization': 'Basic x',
        'x-keep': '1',
      };
      const cross = (await (await client.fetch(`${origin}/to-other`, { headers }, { principal })).json()) as Echo;
      expect(cross.headers.host).toBe(`other.test:${peer.httpPort}`);
      expect(cross.headers.authorization).toBeUndefined();
      expect(cross.headers.cookie).toBeUndefined();
      expect(cross.headers['proxy-authorization']).toBeUndefined();
      expect(cross.headers['x-keep']).toBeUndefined(); // only a safe allow-list crosses origins
      const same = (await (await client.fetch(`${origin}/to-same`, { headers }, { principal })).json()) as Echo;
      expect(same.headers.authorization).toBe('Bearer caller');
      expect(same.headers.cookie).toBe('a=b');
      await client.close();
    },
  );

  it.each([
    ['/r307', 'POST', 'payload-307'],
    ['/r308', 'PUT', 'payload-308'],
  ])('replays the body on %s', async (path, method, body) => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() } });
    const echo = (await (
      await client.fetch(`${origin}${path}`, { method, body, headers: { 'content-type': 'text/plain' } }, { principal })
    ).json()) as Echo;
    expect(echo).toMatchObject({ method, body, path: '/echo' });
    await client.close();
  });

  it.each([['/r303'], ['/r302']])('turns POST into GET without a body on %s', async (path) => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() } });
    const echo = (await (
      await client.fetch(
        `${origin}${path}`,
        { method: 'POST', body: 'gone', headers: { 'content-type': 'text/plain' } },
        { principal },
      )
    ).json()) as Echo;
    expect(echo.method).toBe('GET');
    expect(echo.body).toBe('');
    expect(echo.headers['content-type']).toBeUndefined();
    await client.close();
  });

  it('refuses to replay a streamed body on 307', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() } });
    const body = new ReadableStream({
      start: (c) => {
        c.enqueue(new TextEncoder().encode('s'));
        c.close();
      },
    });
    expect(await codeOf(client.fetch(`${origin}/r307`, { method: 'POST', body }, { principal }))).toBeTrustCode(
      'EGRESS_REDIRECT_BODY',
    );
    await client.close();
  });

  it('honours redirect: manual and redirect: error', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() } });
    const res = await client.fetch(`${origin}/r302`, { redirect: 'manual' }, { principal });
    expect(res.status).toBe(302);
    expect(await codeOf(client.fetch(`${origin}/r302`, { redirect: 'error' }, { principal }))).toBeTrustCode(
      'EGRESS_REDIRECT_REFUSED',
    );
    await client.close();
  });
});

describe('DNS rebinding and resolver failures', () => {
  it(
    'a name that answers loopback to the pre-flight and private ' + 'at connect never reaches the private address',
    async () => {
      const audit = memorySink();
      const resolve = createStubResolver({ 'rebind.test': { sequence: [['127.0.0.1'], ['10.0.0.1']] } });
      const client = createEgressClient({ policy: allowAll, guard: { resolve, cacheTtlMs: 0 }, audit });
      await peer.clear();
      expect(
        await codeOf(client.fetch(`http://rebind.test:${peer.httpPort}/echo`, undefined, { principal })),
      ).toBeTrustCode('EGRESS_PRIVATE_ADDRESS');
      expect(resolve.count('rebind.test')).toBe(2); // pre-flight, then the connect-time check
      expect(await peer.requests()).toHaveLength(0);
      expect(audit.events.at(-1)).toMatchObject({
        decision: 'deny',
        code: expect.toBeTrustCode('EGRESS_PRIVATE_ADDRESS'),
      });
      await client.close();
    },
  );

  it('the dispatcher alone (no pre-flight) judges the address it dials', async () => {
    const resolve = createStubResolver({ 'meta.test': ['169.254.169.254'], 'public.test': ['127.0.0.1'] });
    const dispatcher = createEgressDispatcher({ guard: { resolve, cacheTtlMs: 0 } });
    const err = await rejectionOf(() => request(`http://meta.test:${peer.httpPort}/`, { dispatcher }));
    expect(err).toHaveTrustCode('EGRESS_METADATA');
    const ok = await request(`http://public.test:${peer.httpPort}/echo`, { dispatcher });
    expect(ok.statusCode).toBe(200);
    await ok.body.dump();
    const literal = await rejectionOf(() => request('http://[::ffff:a9fe:a9fe]:80/', { dispatcher }));
    expect(literal).toHaveTrustCode('EGRESS_METADATA');
    await dispatcher.close();
  });

  it.each([
    ['fail.test', { fail: 'ESERVFAIL' }, 'EGRESS_DNS_FAILED'],
    ['hang.test', { hang: true }, 'EGRESS_DNS_TIMEOUT'],
    ['empty.test', [], 'EGRESS_DNS_EMPTY'],
    ['mixed.test', ['127.0.0.1', '10.0.0.1'], 'EGRESS_PRIVATE_ADDRESS'],
    ['mixed6.test', ['::1', 'fe80::1'], 'EGRESS_LINK_LOCAL'],
    ['bogus.test', ['127.0.0.1', 'not-an-ip'], 'EGRESS_DNS_FAILED'],
  ] as const)('%s fails closed with %s', async (host, answer, code) => {
    const resolve = createStubResolver({ [host]: answer as never });
    const client = createEgressClient({ policy: allowAll, guard: { resolve, resolveTimeoutMs: 50, cacheTtlMs: 0 } });
    expect(await codeOf(client.fetch(`http://${host}:${peer.httpPort}/echo`, undefined, { principal }))).toBe(code);
    await client.close();
  });
});

describe('policy', () => {
  it('keeps the policy code, fills in EGRESS_POLICY_DENIED, and denies when the policy throws', async () => {
    const guard = { resolve: resolver() };
    const own: EgressPolicy = {
      authorizeHttp: () => ({ allow: false, code: 'POLICY_HOST_NOT_ALLOWED' as OwnCode, reason: 'no' }),
    };
    const bare: EgressPolicy = { authorizeHttp: () => ({ allow: false, reason: 'no' }) as never };
    const throwing: EgressPolicy = {
      authorizeHttp: () => {
        throw new Error('boom');
      },
    };
    for (const [policy, code] of [
      [own, 'POLICY_HOST_NOT_ALLOWED'],
      [bare, 'EGRESS_POLICY_DENIED'],
      [throwing, 'EGRESS_POLICY_DENIED'],
    ] as const) {
      const client = createEgressClient({ policy, guard });
      expect(await codeOf(client.fetch(`${origin}/echo`, undefined, { principal }))).toBe(code);
      await client.close();
    }
  });

  it('the policy sees the canonical request and the principal', async () => {
    const seen: unknown[] = [];
    const policy: EgressPolicy = {
      authorizeHttp: (req, ctx) => {
        seen.push({ host: req.host, port: req.port, path: req.path, scheme: req.scheme, ctx });
        return { allow: true };
      },
    };
    const client = createEgressClient({ policy, guard: { resolve: resolver() } });
    await (await client.fetch(`http://PUBLIC.test.:${peer.httpPort}/echo?q=1`, undefined, { principal })).text();
    expect(seen[0]).toEqual({
      host: 'public.test',
      port: peer.httpPort,
      path: '/echo?q=1',
      scheme: 'http:',
      ctx: { principal, capability: 'http' },
    });
    await client.close();
  });
});

describe('limits: hostile peers get stable codes, never a hang', () => {
  const limits = {
    headersTimeoutMs: 300,
    bodyTimeoutMs: 300,
    totalTimeoutMs: 4000,
    maxResponseBytes: 100_000,
    maxHeaderBytes: 16_384,
  };
  it.each([
    ['/stall', 'EGRESS_TIMEOUT'],
    ['/slow-headers', 'EGRESS_TIMEOUT'],
    ['/huge-declared', 'EGRESS_RESPONSE_TOO_LARGE'],
    ['/huge-headers', 'EGRESS_HEADERS_TOO_LARGE'],
  ])('%s → %s at fetch', async (path, code) => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() }, limits });
    expect(await codeOf(client.fetch(`${origin}${path}`, undefined, { principal }))).toBe(code);
    await client.close();
  });

  it.each([
    ['/huge', 'EGRESS_RESPONSE_TOO_LARGE'],
    ['/slow-body', 'EGRESS_TIMEOUT'],
  ])('%s → %s while reading the body', async (path, code) => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() }, limits });
    const res = await client.fetch(`${origin}${path}`, undefined, { principal });
    expect(await codeOf(res.arrayBuffer())).toBe(code);
    await client.close();
  });

  it('a total timeout covers a stalled peer even with long per-phase timeouts', async () => {
    const client = createEgressClient({
      policy: allowAll,
      guard: { resolve: resolver() },
      limits: { headersTimeoutMs: 60_000, totalTimeoutMs: 200 },
    });
    expect(await codeOf(client.fetch(`${origin}/stall`, undefined, { principal }))).toBeTrustCode('EGRESS_TIMEOUT');
    await client.close();
  });

  it('an AbortSignal aborts with EGRESS_ABORTED', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() } });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    expect(await codeOf(client.fetch(`${origin}/stall`, { signal: ac.signal }, { principal }))).toBeTrustCode(
      'EGRESS_ABORTED',
    );
    await client.close();
  });

  it('a refused connection is EGRESS_CONNECT_FAILED', async () => {
    const client = createEgressClient({ policy: allowAll });
    const closed = await startPeer();
    const port = closed.httpPort;
    await closed.close();
    expect(await codeOf(client.fetch(`http://127.0.0.1:${port}/`, undefined, { principal }))).toBeTrustCode(
      'EGRESS_CONNECT_FAILED',
    );
    await client.close();
  });
});

describe('client.request (raw stream answer)', () => {
  const limits = { bodyTimeoutMs: 300, maxResponseBytes: 100_000 };
  async function drain(body: NodeJS.ReadableStream): Promise<string> {
    let n = 0;
    for await (const c of body) n += (c as Buffer).length;
    return String(n);
  }

  it('follows redirects with the same checks and streams the body', async () => {
    const audit = memorySink();
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() }, audit });
    const res = await client.request(`${origin}/rel`, undefined, { principal });
    expect(res.statusCode).toBe(200);
    expect(res.redirected).toBe(true);
    expect(res.url).toBe(`${origin}/echo?from=rel`);
    let text = '';
    for await (const c of res.body) text += c;
    expect(JSON.parse(text).path).toBe('/echo?from=rel');
    expect(audit.events).toHaveLength(2);
    expect(await codeOf(client.request(`${origin}/to-private`, undefined, { principal }))).toBeTrustCode(
      'EGRESS_PRIVATE_ADDRESS',
    );
    await client.close();
  });

  it.each([
    ['/huge', 'EGRESS_RESPONSE_TOO_LARGE'],
    ['/slow-body', 'EGRESS_TIMEOUT'],
  ])('%s → %s while streaming', async (path, code) => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolver() }, limits });
    const res = await client.request(`${origin}${path}`, undefined, { principal });
    expect(await codeOf(drain(res.body))).toBe(code);
    await client.close();
  });
});

describe('secrets stay out of errors', () => {
  it('a failing request with injected credentials does not echo them in the error', async () => {
    const policy = injecting('public.test', { authorization: 'Bearer ERR-SECRET-9' });
    const client = createEgressClient({ policy, guard: { resolve: resolver() }, limits: { headersTimeoutMs: 200 } });
    const err = await rejectionOf(() =>
      client.fetch(`${origin}/stall`, { headers: { cookie: 'c=COOKIE-ERR' } }, { principal }),
    );
    expect(err).toHaveTrustCode('EGRESS_TIMEOUT');
    const text = `${String(err)} ${JSON.stringify(err)} ${String(err.cause)} ${err.stack}`;
    expect(text).not.toContain('ERR-SECRET-9');
    expect(text).not.toContain('COOKIE-ERR');
    await client.close();
  });
});
