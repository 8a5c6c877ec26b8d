import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import { allowHosts } from '@trust/core';
import { createEgressClient } from './client.js';
import { Response } from 'undici';
import { allowAll, codeOf, injecting, principal } from './test-fixtures.js';

// Red-team regressions for the guarded fetch, against real loopback peers (child processes).
// Names in URLs resolve to 127.0.0.1 through a stub resolver.
type Echo = { method: string; path: string; headers: Record<string, string>; body: string };

let peer: Peer;
let other: Peer; // a second peer: another port is another origin
const resolve = () =>
  createStubResolver({
    'allowed.test': ['127.0.0.1'],
    'forbidden.test': ['127.0.0.1'],
    'a.test': ['127.0.0.1'],
    'b.test': ['127.0.0.1'],
  });

beforeAll(async () => {
  [peer, other] = await Promise.all([
    startPeer({ routes: { '/echo': { kind: 'echo' } } }),
    startPeer({ routes: { '/echo': { kind: 'echo' } } }),
  ]);
  await peer.route('/to-other-302', {
    kind: 'redirect',
    status: 302,
    location: `http://b.test:${other.httpPort}/echo`,
  });
  await peer.route('/to-other-307', {
    kind: 'redirect',
    status: 307,
    location: `http://b.test:${other.httpPort}/echo`,
  });
  await peer.route('/to-same', { kind: 'redirect', status: 302, location: '/echo' });
});
afterAll(async () => Promise.all([peer.close(), other.close()]));

describe('domain fronting through a caller-supplied Host header', () => {
  it('the peer always sees the URL authority as Host, and hop-by-hop headers are dropped', async () => {
    const port = peer.httpPort;
    const client = createEgressClient({ policy: allowHosts([`allowed.test:${port}`]), guard: { resolve: resolve() } });
    const res = await client.fetch(
      `http://allowed.test:${port}/echo`,
      {
        headers: {
          Host: 'forbidden.test',
          'proxy-authorization': 'Basic eA==',
          'proxy-x': '1',
          te: 'trailers',
          'keep-alive': 'timeout=99',
          'x-fine': 'yes',
        },
      },
      { principal },
    );
    const echo = (await res.json()) as Echo;
    expect(echo.headers.host).toBe(`allowed.test:${port}`);
    expect(echo.headers['proxy-authorization']).toBeUndefined();
    expect(echo.headers['proxy-x']).toBeUndefined();
    expect(echo.headers['keep-alive']).toBeUndefined();
    expect(echo.headers.te).toBeUndefined();
    expect(echo.headers['x-fine']).toBe('yes');
    await client.close();
  });

  it('a policy cannot set Host either', async () => {
    const client = createEgressClient({
      policy: {
        name: 'fronting',
        authorizeHttp: (req) => {
          req.headers.set('host', 'forbidden.test');
          return { allow: true, rule: 'r' };
        },
      },
      guard: { resolve: resolve() },
    });
    const echo = (await (
      await client.fetch(`http://allowed.test:${peer.httpPort}/echo`, undefined, { principal })
    ).json()) as Echo;
    expect(echo.headers.host).toBe(`allowed.test:${peer.httpPort}`);
    await client.close();
  });
});

describe('attack: custom credential headers forwarded on a cross-origin redirect', () => {
  const credentials = {
    'x-api-key': 'k-SECRET',
    'x-auth-token': 't-SECRET',
    'x-session-id': 's-SECRET',
    'x-custom': 'c',
    authorization: 'Bearer SECRET',
    cookie: 'a=SECRET',
  };
  const safe = { accept: 'application/json', 'accept-language': 'en', 'user-agent': 'ua/1' };

  it('a 302 to another origin forwards only the safe headers', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolve() } });
    const res = await client.fetch(
      `http://a.test:${peer.httpPort}/to-other-302`,
      { headers: { ...credentials, ...safe } },
      { principal },
    );
    const echo = (await res.json()) as Echo;
    expect(echo.headers.host).toBe(`b.test:${other.httpPort}`);
    for (const name of Object.keys(credentials)) expect(echo.headers[name], name).toBeUndefined();
    expect(JSON.stringify(echo.headers)).not.toContain('SECRET');
    for (const [name, value] of Object.entries(safe)) expect(echo.headers[name]).toBe(value);
    await client.close();
  });

  it('a 307 POST to another origin replays the body and content-type, nothing else of the caller', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolve() } });
    const res = await client.fetch(
      `http://a.test:${peer.httpPort}/to-other-307`,
      { method: 'POST', body: 'payload', headers: { ...credentials, 'content-type': 'text/plain' } },
      { principal },
    );
    const echo = (await res.json()) as Echo;
    expect(echo).toMatchObject({ method: 'POST', body: 'payload' });
    expect(echo.headers['content-type']).toBe('text/plain');
    expect(JSON.stringify(echo.headers)).not.toContain('SECRET');
    await client.close();
  });

  it(
    "policy injection runs again per hop: the first origin's " +
      'injected key does not cross, the new origin gets its own',
    async () => {
      const policy = injecting(`a.test`, { 'x-api-key': 'for-a-SECRET' });
      const client = createEgressClient({ policy, guard: { resolve: resolve() } });
      const echo = (await (
        await client.fetch(`http://a.test:${peer.httpPort}/to-other-302`, undefined, { principal })
      ).json()) as Echo;
      expect(echo.headers['x-api-key']).toBeUndefined();
      expect(policy.calls.map((c) => c.host)).toEqual(['a.test', 'b.test']);
      await client.close();
    },
  );

  it('the same origin keeps every caller header', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolve() } });
    const echo = (await (
      await client.fetch(`http://a.test:${peer.httpPort}/to-same`, { headers: credentials }, { principal })
    ).json()) as Echo;
    for (const [name, value] of Object.entries(credentials)) expect(echo.headers[name]).toBe(value);
    await client.close();
  });
});

describe('each body mode keeps the limits (dispatch handler paths)', () => {
  const origin = () => `http://a.test:${peer.httpPort}`;
  beforeAll(async () => {
    await peer.route('/drip', { kind: 'slow-body', intervalMs: 40 });
    await peer.route('/100k-declared', { kind: 'huge-body', bytes: 100_000, declareLength: true });
    await peer.route('/100k-chunked', { kind: 'huge-body', bytes: 100_000 });
    await peer.route('/small', { kind: 'text', body: 'small body' }); // chunked: streamed
    // buffered
    await peer.route('/small-sized', { kind: 'text', body: 'small body', headers: { 'content-length': '10' } });
  });

  it('buffered and streamed bodies both answer a real Response: status text, headers, url', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolve() } });
    for (const [path, type] of [
      ['/small-sized', 'text/plain'],
      ['/small', 'text/plain'],
      ['/echo', 'application/json'],
    ] as const) {
      const res = await client.fetch(`${origin()}${path}`, undefined, { principal });
      expect(res).toBeInstanceOf(Response);
      expect([res.status, res.statusText, res.url, res.redirected]).toEqual([200, 'OK', `${origin()}${path}`, false]);
      expect(res.headers.get('content-type')).toBe(type);
      expect((await res.text()).length).toBeGreaterThan(0);
    }
    await client.close();
  });

  it('bodies over the buffering size stream whole, with or without a declared length', async () => {
    const client = createEgressClient({
      policy: allowAll,
      guard: { resolve: resolve() },
      limits: { maxResponseBytes: 200_000 },
    });
    for (const path of ['/100k-declared', '/100k-chunked']) {
      expect(
        (await (await client.fetch(`${origin()}${path}`, undefined, { principal })).arrayBuffer()).byteLength,
      ).toBe(100_000);
      let n = 0;
      for await (const c of (await client.request(`${origin()}${path}`, undefined, { principal })).body)
        n += (c as Buffer).length;
      expect(n).toBe(100_000);
    }
    await client.close();
  });

  it('the caller aborting after the headers fails the body with EGRESS_ABORTED (fetch and request)', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolve() } });
    const a1 = new AbortController();
    const res = await client.fetch(`${origin()}/drip`, { signal: a1.signal }, { principal });
    setTimeout(() => a1.abort(), 100);
    expect(await codeOf(res.arrayBuffer())).toBeTrustCode('EGRESS_ABORTED');
    const a2 = new AbortController();
    const raw = await client.request(`${origin()}/drip`, { signal: a2.signal }, { principal });
    setTimeout(() => a2.abort(), 100);
    expect(
      await codeOf(
        (async () => {
          for await (const _ of raw.body) {
            /* drain */
          }
        })(),
      ),
    ).toBeTrustCode('EGRESS_ABORTED');
    await client.close();
  });

  it('the total deadline also covers a body that keeps dripping within the idle timeout', async () => {
    const client = createEgressClient({
      policy: allowAll,
      guard: { resolve: resolve() },
      limits: { totalTimeoutMs: 300, bodyTimeoutMs: 60_000 },
    });
    const res = await client.fetch(`${origin()}/drip`, undefined, { principal });
    expect(await codeOf(res.arrayBuffer())).toBeTrustCode('EGRESS_TIMEOUT');
    const raw = await client.request(`${origin()}/drip`, undefined, { principal });
    expect(
      await codeOf(
        (async () => {
          for await (const _ of raw.body) {
            /* drain */
          }
        })(),
      ),
    ).toBeTrustCode('EGRESS_TIMEOUT');
    await client.close();
  });

  it('an already aborted signal never dials', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { resolve: resolve() } });
    const before = (await peer.requests()).length;
    expect(
      await codeOf(client.fetch(`${origin()}/small`, { signal: AbortSignal.abort() }, { principal })),
    ).toBeTrustCode('EGRESS_ABORTED');
    expect(
      await codeOf(client.request(`${origin()}/small`, { signal: AbortSignal.abort() }, { principal })),
    ).toBeTrustCode('EGRESS_ABORTED');
    expect((await peer.requests()).length).toBe(before);
    await client.close();
  });
});
