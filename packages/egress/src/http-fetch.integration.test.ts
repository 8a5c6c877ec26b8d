import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import { allowHosts } from '@trust/core';
import { createEgressClient } from './client.js';
import { principal } from './test-fixtures.js';

// Red-team regressions for the guarded fetch, against real loopback peers (child processes).
// Names in URLs resolve to 127.0.0.1 through a stub resolver.
type Echo = { method: string; path: string; headers: Record<string, string>; body: string };

let peer: Peer;
const resolve = () => createStubResolver({ 'allowed.test': ['127.0.0.1'], 'forbidden.test': ['127.0.0.1'] });

beforeAll(async () => {
  peer = await startPeer({ routes: { '/echo': { kind: 'echo' } } });
});
afterAll(async () => peer.close());

describe('domain fronting through a caller-supplied Host header', () => {
  it('the peer always sees the URL authority as Host, and hop-by-hop headers are dropped', async () => {
    const port = peer.httpPort;
    const client = createEgressClient({ policy: allowHosts([`allowed.test:${port}`]), guard: { resolve: resolve() } });
    const res = await client.fetch(
      `http://allowed.test:${port}/echo`,
      { headers: { Host: 'forbidden.test', 'proxy-authorization': 'Basic eA==', 'proxy-x': '1', te: 'trailers', 'keep-alive': 'timeout=99', 'x-fine': 'yes' } },
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
      policy: { name: 'fronting', authorizeHttp: (req) => (req.headers.set('host', 'forbidden.test'), { allow: true, rule: 'r' }) },
      guard: { resolve: resolve() },
    });
    const echo = (await (await client.fetch(`http://allowed.test:${peer.httpPort}/echo`, undefined, { principal })).json()) as Echo;
    expect(echo.headers.host).toBe(`allowed.test:${peer.httpPort}`);
    await client.close();
  });
});
