import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import type { EgressPolicy } from '@trust/core';
import { createEgressClient } from './client.js';
import { codeOf, injecting, memorySink, principal } from './test-fixtures.js';

import type { Deny } from '@trust/core';
// A policy's own deny code, which the type system does not know: JS policies may return one.
type OwnCode = Deny['code'];

let peer: Peer;
const resolve = () => createStubResolver({ 'public.test': ['127.0.0.1'], 'lan.test': ['10.9.9.9'] });
const sockets: EgressPolicy = {
  name: 'sockets',
  authorizeHttp: () => ({ allow: true }),
  authorizeTcp: (peer) =>
    peer.port === 9
      ? { allow: false, code: 'POLICY_PORT' as OwnCode, reason: 'no discard' }
      : { allow: true, rule: 'tcp' },
  authorizeUdp: () => ({ allow: true, rule: 'udp' }),
};

beforeAll(async () => {
  peer = await startPeer();
});
afterAll(async () => peer.close());

describe('webSocket', () => {
  it(
    'opens through the guarded dispatcher; injected headers ' + 'reach the handshake and stay out of the audit',
    async () => {
      const audit = memorySink();
      const client = createEgressClient({
        policy: injecting('public.test', { authorization: 'Bearer WS-SECRET' }),
        guard: { resolve: resolve() },
        audit,
      });
      const ws = await client.webSocket(`ws://public.test:${peer.httpPort}/socket?ticket=t1`, {
        principal,
        protocols: ['chat'],
      });
      const messages: string[] = [];
      await new Promise<void>((ok, fail) => {
        ws.onmessage = (e) => {
          messages.push(String(e.data));
          if (messages.length === 1) ws.send('ping');
          else ws.close();
        };
        ws.onclose = () => ok();
        ws.onerror = () => fail(new Error('ws error'));
      });
      expect(messages).toEqual(['hello', 'ping']);
      const handshake = (await peer.requests()).find((r) => r.path.startsWith('/socket'));
      expect(handshake?.headers.authorization).toBe('Bearer WS-SECRET');
      expect(audit.events[0]).toMatchObject({
        action: 'egress.ws',
        decision: 'allow',
        target: `ws://public.test:${peer.httpPort}/socket?ticket=REDACTED`,
      });
      expect(audit.json()).not.toContain('WS-SECRET');
      await client.close();
    },
  );

  it.each([
    [`ws://lan.test/`, 'EGRESS_PRIVATE_ADDRESS'],
    [`wss://169.254.169.254/`, 'EGRESS_METADATA'],
    [`http://public.test/`, 'EGRESS_SCHEME'],
    [`ws://u:p@public.test/`, 'EGRESS_USERINFO'],
  ])('refuses %s with %s', async (url, code) => {
    const client = createEgressClient({ policy: sockets, guard: { resolve: resolve() } });
    expect(await codeOf(client.webSocket(url, { principal }))).toBe(code);
    await client.close();
  });
});

describe('connectTcp', () => {
  it('connects to the vetted address and echoes; audits resolved and dialled', async () => {
    const audit = memorySink();
    const client = createEgressClient({ policy: sockets, guard: { resolve: resolve() }, audit });
    const socket = await client.connectTcp('public.test', peer.tcpPort, { principal });
    const echoed = await new Promise<string>((ok) => {
      let got = '';
      socket.on('data', (d) => (got += d));
      socket.on('end', () => ok(got));
      socket.end('tcp-hello');
    });
    expect(echoed).toBe('tcp-hello');
    expect(audit.events[0]).toMatchObject({
      action: 'egress.tcp',
      decision: 'allow',
      target: `tcp://public.test:${peer.tcpPort}`,
    });
    expect(audit.events[0]!.details).toMatchObject({ resolved: ['127.0.0.1'], dialled: '127.0.0.1' });
    await client.close();
  });

  it.each([
    [
      'a policy without authorizeTcp',
      { authorizeHttp: () => ({ allow: true }) } as EgressPolicy,
      '127.0.0.1',
      'EGRESS_NO_TCP_POLICY',
    ],
    ['a private name', sockets, 'lan.test', 'EGRESS_PRIVATE_ADDRESS'],
    ['the metadata address', sockets, '169.254.169.254', 'EGRESS_METADATA'],
    ['a host with a path', sockets, 'public.test/x', 'EGRESS_TARGET_INVALID'],
  ])('denies %s', async (_label, policy, host, code) => {
    const audit = memorySink();
    const client = createEgressClient({ policy, guard: { resolve: resolve() }, audit });
    expect(await codeOf(client.connectTcp(host, peer.tcpPort, { principal }))).toBe(code);
    expect(audit.events[0]).toMatchObject({ decision: 'deny', code });
    await client.close();
  });

  it('keeps the policy code and refuses loopback in strict mode', async () => {
    const client = createEgressClient({ policy: sockets, guard: { resolve: resolve() } });
    expect(await codeOf(client.connectTcp('127.0.0.1', 9, { principal }))).toBe('POLICY_PORT');
    const strict = createEgressClient({ policy: sockets, guard: { mode: 'strict' } });
    expect(await codeOf(strict.connectTcp('::1', peer.tcpPort, { principal }))).toBeTrustCode('EGRESS_LOOPBACK');
    expect(await codeOf(client.connectTcp('127.0.0.1', 0, { principal }))).toBeTrustCode('EGRESS_TARGET_INVALID');
    await client.close();
    await strict.close();
  });
});

describe('sendUdp', () => {
  it('sends one datagram to the vetted address', async () => {
    const client = createEgressClient({ policy: sockets, guard: { resolve: resolve() } });
    await client.sendUdp('public.test', peer.udpPort, 'udp-hello', { principal });
    let seen: readonly string[] = [];
    for (let i = 0; i < 50 && !seen.includes('udp-hello'); i++) {
      seen = (await peer.stats()).udpMessages;
      if (!seen.includes('udp-hello')) await new Promise((r) => setTimeout(r, 10));
    }
    expect(seen).toContain('udp-hello');
    await client.close();
  });

  it('denies without authorizeUdp, and to blocked addresses', async () => {
    const noUdp = createEgressClient({ policy: { authorizeHttp: () => ({ allow: true }) } });
    expect(await codeOf(noUdp.sendUdp('127.0.0.1', peer.udpPort, 'x', { principal }))).toBeTrustCode(
      'EGRESS_NO_UDP_POLICY',
    );
    const client = createEgressClient({ policy: sockets, guard: { resolve: resolve() } });
    expect(await codeOf(client.sendUdp('255.255.255.255', 53, 'x', { principal }))).toBeTrustCode('EGRESS_BROADCAST');
    expect(await codeOf(client.sendUdp('lan.test', 53, 'x', { principal }))).toBeTrustCode('EGRESS_PRIVATE_ADDRESS');
    await noUdp.close();
    await client.close();
  });
});
