// client.openUdp against the real UDP echo listener of a peer child process on 127.0.0.1.
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import type { EgressPolicy } from '@trust/core';
import { createEgressClient } from './client.js';
import { codeOf, memorySink, principal } from './test-fixtures.js';

import type { Deny } from '@trust/core';
// A policy's own deny code, which the type system does not know: JS policies may return one.
type OwnCode = Deny['code'];

let peer: Peer;
// The guard runs in mode 'default' so the loopback peer is reachable; 'lan.test' stands for a private host.
const resolve = () =>
  createStubResolver({ 'echo.test': ['127.0.0.1'], 'lan.test': ['10.9.9.9'], 'meta.test': ['169.254.169.254'] });
const udpPolicy: EgressPolicy = {
  name: 'udp-gate',
  authorizeHttp: () => ({ allow: false, code: 'NO_HTTP' as OwnCode, reason: 'udp only' }),
  authorizeUdp: (p) =>
    p.host === 'blocked.test'
      ? { allow: false, code: 'POLICY_UDP_HOST' as OwnCode, reason: 'not this one' }
      : { allow: true, rule: 'udp' },
};
const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

beforeAll(async () => {
  peer = await startPeer();
});
afterAll(async () => peer.close());

describe('openUdp', () => {
  it('round-trips datagrams with the vetted peer; one audit event with resolved and dialled', async () => {
    const audit = memorySink();
    const client = createEgressClient({ policy: udpPolicy, guard: { resolve: resolve() }, audit });
    const udp = await client.openUdp('echo.test', peer.udpPort, { principal });
    expect(udp.remote).toEqual({ host: 'echo.test', ip: '127.0.0.1', port: peer.udpPort });
    expect(udp.local.port).toBeGreaterThan(0);
    await udp.send('one');
    expect(text(await udp.receive())).toBe('one');
    await udp.send(new Uint8Array([1, 2, 3, 4, 5]));
    expect([...(await udp.receive({ maxBytes: 3 }))]).toEqual([1, 2, 3]);
    expect(audit.events).toHaveLength(1);
    expect(audit.events[0]).toMatchObject({
      action: 'egress.udp',
      decision: 'allow',
      rule: 'udp',
      target: `udp://echo.test:${peer.udpPort}`,
    });
    expect(audit.events[0]!.details).toMatchObject({ resolved: ['127.0.0.1'], dialled: '127.0.0.1' });
    await client.close();
  });

  it('only datagrams from the dialled peer arrive', async () => {
    const client = createEgressClient({ policy: udpPolicy, guard: { resolve: resolve() } });
    const udp = await client.openUdp('127.0.0.1', peer.udpPort, { principal });
    const stranger = createSocket('udp4');
    await new Promise<void>((ok, fail) =>
      stranger.send('spoofed', udp.local.port, '127.0.0.1', (e) => (e ? fail(e) : ok())),
    );
    await udp.send('genuine');
    expect(text(await udp.receive({ signal: AbortSignal.timeout(5000) }))).toBe('genuine');
    stranger.close();
    await client.close();
  });

  it('caps datagram size, aborts a pending receive, and closing rejects what is pending', async () => {
    const client = createEgressClient({ policy: udpPolicy, guard: { resolve: resolve() } });
    const udp = await client.openUdp('127.0.0.1', peer.udpPort, { principal, maxDatagramBytes: 8 });
    expect(await codeOf(udp.send('123456789'))).toBeTrustCode('EGRESS_DATAGRAM_TOO_LARGE');
    const ac = new AbortController();
    const pending = codeOf(udp.receive({ signal: ac.signal }));
    ac.abort();
    expect(await pending).toBeTrustCode('EGRESS_ABORTED');
    const waiting = codeOf(udp.receive());
    await udp.close();
    expect(await waiting).toBeTrustCode('EGRESS_ABORTED');
    expect(await codeOf(udp.send('x'))).toBeTrustCode('EGRESS_ABORTED');
    await client.close();
  });

  it('reports an ICMP port-unreachable once as EGRESS_CONNECT_FAILED', async () => {
    const closed = createSocket('udp4');
    const port = await new Promise<number>((ok) => closed.bind(0, '127.0.0.1', () => ok(closed.address().port)));
    closed.close();
    const client = createEgressClient({ policy: udpPolicy, guard: { resolve: resolve() } });
    const udp = await client.openUdp('127.0.0.1', port, { principal });
    const got = codeOf(udp.receive({ signal: AbortSignal.timeout(5000) }));
    await udp.send('anyone?');
    expect(await got).toBeTrustCode('EGRESS_CONNECT_FAILED');
    await client.close();
  });

  it.each([
    [
      'a policy without authorizeUdp',
      { name: 'http-only', authorizeHttp: () => ({ allow: true }) } as EgressPolicy,
      {},
      'echo.test',
      'EGRESS_NO_UDP_POLICY',
    ],
    ['a policy deny (its code is kept)', udpPolicy, {}, 'blocked.test', 'POLICY_UDP_HOST'],
    ['a private name', udpPolicy, {}, 'lan.test', 'EGRESS_PRIVATE_ADDRESS'],
    ['a name resolving to metadata', udpPolicy, {}, 'meta.test', 'EGRESS_METADATA'],
    ['loopback under the strict guard', udpPolicy, { mode: 'strict' as const }, 'echo.test', 'EGRESS_LOOPBACK'],
    ['broadcast', udpPolicy, {}, '255.255.255.255', 'EGRESS_BROADCAST'],
    ['a host with a path', udpPolicy, {}, 'echo.test/x', 'EGRESS_TARGET_INVALID'],
  ])('denies %s, audited', async (_label, policy, guard, host, code) => {
    const audit = memorySink();
    const client = createEgressClient({ policy, guard: { resolve: resolve(), ...guard }, audit });
    expect(await codeOf(client.openUdp(host, peer.udpPort, { principal }))).toBe(code);
    expect(audit.events).toHaveLength(1);
    expect(audit.events[0]).toMatchObject({ action: 'egress.udp', decision: 'deny', code });
    await client.close();
  });

  it('refuses an already aborted open and bad size options', async () => {
    const client = createEgressClient({ policy: udpPolicy, guard: { resolve: resolve() } });
    expect(
      await codeOf(client.openUdp('127.0.0.1', peer.udpPort, { principal, signal: AbortSignal.abort() })),
    ).toBeTrustCode('EGRESS_ABORTED');
    await expect(client.openUdp('127.0.0.1', peer.udpPort, { principal, maxDatagramBytes: 70_000 })).rejects.toThrow(
      RangeError,
    );
    await client.close();
  });
});
