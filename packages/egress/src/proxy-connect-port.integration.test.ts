import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import { allowHosts, chain, type EgressPolicy } from '@trust/core';
import { createEgressProxy, type EgressProxy } from './proxy.js';
import { memorySink, principal } from './test-fixtures.js';

// Regression (an http grant was an opaque TCP tunnel): with only `http` and a rule for a host,
// CONNECT host:<any port> got a tunnel to SSH, Redis or SMTP there. The peer's raw TCP echo
// listener stands in for such a service; `svc.test` resolves to it through a stub resolver
// (the guard's default mode allows loopback).
let peer: Peer;
const resolve = () => createStubResolver({ 'svc.test': ['127.0.0.1'] });
const proxies: EgressProxy[] = [];

beforeAll(async () => {
  peer = await startPeer();
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await peer.close();
});

async function proxyFor(
  policy: EgressPolicy,
  audit = memorySink(),
): Promise<{ proxy: EgressProxy; audit: ReturnType<typeof memorySink> }> {
  const proxy = await createEgressProxy({
    policy,
    audit,
    guard: { resolve: resolve() },
    principal,
    listen: { host: '127.0.0.1', port: 0 },
  });
  proxies.push(proxy);
  return { proxy, audit };
}

/** CONNECT, then (if 200) sends `hello` and reads the echo. Resolves with the status line and what came back. */
function tunnel(proxy: EgressProxy, authority: string): Promise<{ head: string; body: string }> {
  const { host, port } = proxy.address as { host: string; port: number };
  return new Promise((ok, fail) => {
    const s = connect({ host, port }, () => s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let raw = '';
    let sent = false;
    s.on('data', (d) => {
      raw += d.toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (raw.startsWith('HTTP/1.1 200') && !sent) {
        sent = true;
        s.write('hello');
      }
      if (sent && raw.slice(end + 4).includes('hello')) s.end();
    });
    s.on('close', () => {
      const end = raw.indexOf('\r\n\r\n');
      ok({ head: raw.slice(0, end < 0 ? raw.length : end), body: end < 0 ? '' : raw.slice(end + 4) });
    });
    s.on('error', fail);
  });
}

describe('CONNECT under http reaches port 443 or a port the rule names, nothing else', () => {
  it(
    'a host rule without a port: CONNECT to a raw TCP service on the ' +
      'allowed host is refused (403, audited) and never dialled',
    async () => {
      const { proxy, audit } = await proxyFor(allowHosts(['svc.test']));
      const before = (await peer.stats()).tcpConnections;
      const r = await tunnel(proxy, `svc.test:${peer.tcpPort}`);
      expect(r.head).toMatch(/^HTTP\/1\.1 403 /);
      expect(r.head).toContain('x-trust-deny: EGRESS_TUNNEL_PORT_NOT_ALLOWED');
      expect(r.body).toContain('a host rule without a port opens tunnels to port 443 only');
      expect(r.body).toContain(`"svc.test:${peer.tcpPort}"`);
      expect((await peer.stats()).tcpConnections).toBe(before);
      expect(audit.events.at(-1)).toMatchObject({
        action: 'egress.http',
        target: `connect://svc.test:${peer.tcpPort}`,
        decision: 'deny',
        code: expect.toBeTrustCode('EGRESS_TUNNEL_PORT_NOT_ALLOWED'),
      });
    },
  );

  it('a rule that names the port opens the tunnel to that port', async () => {
    const { proxy, audit } = await proxyFor(allowHosts([`svc.test:${peer.tcpPort}`]));
    const r = await tunnel(proxy, `svc.test:${peer.tcpPort}`);
    expect(r.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(r.body).toBe('hello');
    expect(audit.events.at(-1)).toMatchObject({
      action: 'egress.http',
      decision: 'allow',
      rule: `allow-hosts:svc.test:${peer.tcpPort}`,
    });
  });

  it('port 443 is judged as HTTPS with a port-less rule (allowed; nothing listens there, so 502)', async () => {
    const { proxy, audit } = await proxyFor(allowHosts(['svc.test']));
    const r = await tunnel(proxy, 'svc.test:443');
    expect(r.head).toMatch(/^HTTP\/1\.1 502 /);
    expect(audit.events.at(-1)).toMatchObject({ decision: 'allow', details: { failure: 'EGRESS_CONNECT_FAILED' } });
  });

  it(
    'a hand-written policy that allows everything over http still ' +
      'gets no raw tunnel to another port (fail closed)',
    async () => {
      const httpOnly: EgressPolicy = { name: 'all-http', authorizeHttp: () => ({ allow: true, rule: 'all' }) };
      const { proxy, audit } = await proxyFor(httpOnly);
      const r = await tunnel(proxy, `svc.test:${peer.tcpPort}`);
      expect(r.head).toMatch(/^HTTP\/1\.1 403 /);
      expect(r.head).toContain('x-trust-deny: EGRESS_TUNNEL_PORT_NOT_ALLOWED');
      expect(r.body).toContain('authorizeTcp');
      expect(audit.events.at(-1)).toMatchObject({
        decision: 'deny',
        code: expect.toBeTrustCode('EGRESS_TUNNEL_PORT_NOT_ALLOWED'),
      });
    },
  );

  it('another port opens through the tcp capability: authorizeTcp allows it, audited as egress.tcp', async () => {
    const policy = chain(
      allowHosts(['svc.test']),
      allowHosts([`svc.test:${peer.tcpPort}`], { name: 'tcp-gate', http: false, tcp: true }),
    );
    const { proxy, audit } = await proxyFor(policy);
    const r = await tunnel(proxy, `svc.test:${peer.tcpPort}`);
    expect(r.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(r.body).toBe('hello');
    expect(audit.events.at(-1)).toMatchObject({
      action: 'egress.tcp',
      decision: 'allow',
      rule: `tcp-gate:svc.test:${peer.tcpPort}`,
    });
  });
});
