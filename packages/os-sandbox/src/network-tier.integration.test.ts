// The coarse `network` tier: its own network namespace, the run's own proxy, any public host, and
// the strict address floor. Names are resolved by a stub resolver, so no test traffic ever goes
// to a non-loopback address: the floor refuses before anything is dialled.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowHosts, createMemoryAuditSink, type EgressPolicy } from '@trust/core';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import { defaultProxyFactory, type EgressProxyRequest } from './network.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { NODE, NODE_ROOTS, SOCKS_UDP, runIn } from './test-helpers.js';

const CURL = '/usr/bin/curl';

describe('network tier: own namespace, per-run proxy, strict floor (bubblewrap)', () => {
  let peer: Peer;
  let sb: Sandbox;
  const audit = createMemoryAuditSink();
  const requests: EgressProxyRequest[] = [];
  // "Public-looking" names that resolve to loopback, metadata, private and CGNAT addresses.
  const resolve = createStubResolver({
    'www.public-site.test': ['127.0.0.1'],
    'cdn.public-site.test': ['169.254.169.254'],
    'api.public-site.test': ['10.1.2.3'],
    'mixed.public-site.test': ['93.184.216.34', '127.0.0.1'],
    'cgnat.public-site.test': ['100.64.0.7'],
  });

  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    expect(existsSync(CURL), 'curl is needed inside the sandbox for this test').toBe(true);
    peer = await startPeer({ routes: { '/hello': { kind: 'text', body: 'hello-through-proxy' } } });
    // No allowDegraded: the tier no longer needs the shared network. The caller's guard asks for
    // 'allow-local' and opens 10/8: the floor ignores both.
    sb = await createSandbox(
      {
        v: 1,
        capabilities: ['network', 'stdout', 'stderr'],
        systemRoots: NODE_ROOTS,
        network: { guard: 'allow-local', proxyPort: 3128 },
      },
      {
        audit,
        guard: { mode: 'allow-local', allowCidrs: ['10.0.0.0/8', '127.0.0.0/8'], resolve },
        createProxy: (request) => {
          requests.push(request);
          return defaultProxyFactory(request);
        },
      },
    );
  });
  afterAll(async () => {
    await sb?.close();
    await peer?.close();
  });

  it('runs without a degraded mode, through its own proxy with the strict floor and UDP relay', async () => {
    expect(sb.degraded).toEqual([]);
    const r = await runIn(sb, ['/bin/true']);
    expect(r.exit.code).toBe(0);
    const req = requests.find((q) => q.principal.id === r.exit.runId);
    expect(req?.guard.mode).toBe('strict');
    expect(req?.guard.allowCidrs).toBeUndefined();
    expect(req?.udp).toEqual({ announce: { host: '127.0.0.1', port: 3128 } });
    // The default policy of the tier allows every kind of traffic to any host; the guard decides.
    const ctx = { principal: req!.principal, capability: 'network' as const };
    expect(
      await req!.policy.authorizeHttp(
        {
          method: 'GET',
          url: 'https://example.org/',
          scheme: 'https:',
          host: 'example.org',
          port: 443,
          path: '/',
          headers: new Headers(),
        },
        ctx,
      ),
    ).toMatchObject({ allow: true });
    expect(await req!.policy.authorizeTcp?.({ host: 'example.org', port: 22 }, ctx)).toMatchObject({ allow: true });
    expect(await req!.policy.authorizeUdp?.({ host: 'example.org', port: 123 }, ctx)).toMatchObject({ allow: true });
  });

  it.each([
    ['www.public-site.test', 'EGRESS_LOOPBACK'],
    ['cdn.public-site.test', 'EGRESS_METADATA'],
    ['api.public-site.test', 'EGRESS_PRIVATE_ADDRESS'],
    ['mixed.public-site.test', 'EGRESS_LOOPBACK'],
    ['cgnat.public-site.test', 'EGRESS_PRIVATE_ADDRESS'],
    ['169.254.169.254', 'EGRESS_METADATA'],
  ])('refuses %s (%s) through the proxy, audited as a violation', async (host, code) => {
    const r = await runIn(sb, [CURL, '-sS', '--max-time', '10', '-i', `http://${host}:${peer.httpPort}/hello`]);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 403/);
    expect(r.stdout).toMatch(new RegExp(`x-trust-deny: ${code}`, 'i'));
    expect(r.stdout).not.toContain('hello-through-proxy');
    expect(r.exit.violations).toEqual([expect.objectContaining({ action: 'egress.http', code })]);
    const mine = audit.events().filter((e) => e.principal.id === r.exit.runId && e.action === 'egress.http');
    expect(mine).toEqual([expect.objectContaining({ decision: 'deny', code })]);
  });

  it('refuses CONNECT tunnels to loopback names, and has no direct route', async () => {
    const tunnel = await runIn(sb, [
      CURL,
      '-sS',
      '--max-time',
      '10',
      '-p',
      `http://www.public-site.test:${peer.httpPort}/hello`,
    ]);
    expect(tunnel.exit.code).not.toBe(0);
    expect(tunnel.stderr).toMatch(/403/);
    const direct = await runIn(sb, [
      NODE,
      '-e',
      `require('net').connect(${peer.tcpPort}, '127.0.0.1').on('connect', () => { console.log('CONNECTED'); ` +
        `process.exit(0); }).on('error', (e) => { console.log('ERR ' + e.code); process.exit(0); });`,
    ]);
    expect(direct.stdout.trim()).toBe('ERR ECONNREFUSED');
    const noproxy = await runIn(sb, [
      CURL,
      '-sS',
      '--max-time',
      '5',
      '--noproxy',
      '*',
      `http://127.0.0.1:${peer.httpPort}/hello`,
    ]);
    expect(noproxy.stdout).not.toContain('hello-through-proxy');
  });

  it('UDP goes through the same floor: a loopback name is refused by the relay', async () => {
    // No reply can come, so the client is bounded by the run's time limit.
    const r = await runIn(sb, [NODE, '-e', SOCKS_UDP, `www.public-site.test:${peer.udpPort}:tier-udp`], {
      timeoutMs: 4000,
    });
    expect(r.stdout).not.toContain('ECHO');
    expect(r.exit.violations).toEqual([
      expect.objectContaining({ action: 'egress.udp', code: expect.toBeTrustCode('EGRESS_LOOPBACK') }),
    ]);
    expect((await peer.stats()).udpMessages).not.toContain('tier-udp');
  });

  it("a caller's egress policy narrows the tier, and the floor still applies to what it allows", async () => {
    const narrowed: EgressPolicy = allowHosts(['www.public-site.test']);
    const nb = await createSandbox(
      { v: 1, capabilities: ['network', 'stdout', 'stderr'] },
      { egress: narrowed, audit, guard: { resolve } },
    );
    try {
      const other = await runIn(nb, [
        CURL,
        '-sS',
        '--max-time',
        '10',
        '-i',
        `http://cdn.public-site.test:${peer.httpPort}/hello`,
      ]);
      expect(other.stdout).toMatch(/x-trust-deny: EGRESS_HOST_NOT_ALLOWED/i);
      const allowed = await runIn(nb, [
        CURL,
        '-sS',
        '--max-time',
        '10',
        '-i',
        `http://www.public-site.test:${peer.httpPort}/hello`,
      ]);
      expect(allowed.stdout).toMatch(/x-trust-deny: EGRESS_LOOPBACK/i);
    } finally {
      await nb.close();
    }
  });
});
