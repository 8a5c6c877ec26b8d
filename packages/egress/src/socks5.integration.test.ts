import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import type { EgressPolicy } from '@trust/core';
import { createEgressProxy, type EgressProxy } from './proxy.js';
import { memorySink, principal } from './test-fixtures.js';

import type { Deny } from '@trust/core';
// A policy's own deny code, which the type system does not know: JS policies may return one.
type OwnCode = Deny['code'];

let peer: Peer;
const resolve = () => createStubResolver({ 'public.test': ['127.0.0.1'], 'lan.test': ['10.1.2.3'] });
const tcpPolicy: EgressPolicy = {
  name: 'tcp',
  authorizeHttp: () => ({ allow: true }),
  authorizeTcp: (p) =>
    p.port === 9 ? { allow: false, code: 'POLICY_PORT' as OwnCode, reason: 'no' } : { allow: true, rule: 'tcp' },
};

function open(proxy: EgressProxy): Promise<Socket> {
  return new Promise((ok, fail) => {
    const a = proxy.address;
    const s = 'path' in a ? connect(a.path) : connect(a.port, a.host);
    s.once('connect', () => ok(s));
    s.once('error', fail);
  });
}

/** Reads until `n` bytes arrived (or the socket ends). */
function read(s: Socket, n: number): Promise<Buffer> {
  return new Promise((ok) => {
    let buf = Buffer.alloc(0);
    const on = (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length >= n) done();
    };
    const done = () => {
      s.off('data', on);
      s.off('end', done);
      ok(buf);
    };
    s.on('data', on);
    s.on('end', done);
  });
}

/** Greeting + CONNECT by domain name; returns the 10-byte reply and the socket. */
async function socksConnect(
  proxy: EgressProxy,
  host: string,
  port: number,
  cmd = 0x01,
): Promise<{ rep: number; socket: Socket }> {
  const s = await open(proxy);
  s.write(Buffer.from([0x05, 0x01, 0x00]));
  const hello = await read(s, 2);
  expect([...hello]).toEqual([0x05, 0x00]);
  const name = Buffer.from(host, 'latin1');
  const p = Buffer.alloc(2);
  p.writeUInt16BE(port);
  s.write(Buffer.concat([Buffer.from([0x05, cmd, 0x00, 0x03, name.length]), name, p]));
  const rep = await read(s, 10);
  return { rep: rep[1] ?? -1, socket: s };
}

beforeAll(async () => {
  peer = await startPeer();
});
afterAll(async () => peer.close());

describe('SOCKS5 on the proxy listener', () => {
  it('CONNECTs to an allowed peer through the vetted address and audits egress.tcp', async () => {
    const audit = memorySink();
    const proxy = await createEgressProxy({
      policy: tcpPolicy,
      guard: { resolve: resolve() },
      audit,
      principal,
      listen: { host: '127.0.0.1', port: 0 },
    });
    const { rep, socket } = await socksConnect(proxy, 'public.test', peer.tcpPort);
    expect(rep).toBe(0x00);
    socket.write('through-socks');
    expect((await read(socket, 13)).toString()).toBe('through-socks');
    socket.destroy();
    expect(audit.events[0]).toMatchObject({
      action: 'egress.tcp',
      decision: 'allow',
      target: `socks://public.test:${peer.tcpPort}`,
      principal,
    });
    expect(audit.events[0]!.details).toMatchObject({ via: 'socks5', dialled: '127.0.0.1' });
    await proxy.close();
  });

  it.each([
    ['lan.test', 80, 0x02, 'EGRESS_PRIVATE_ADDRESS'],
    ['169.254.169.254', 80, 0x02, 'EGRESS_METADATA'],
    ['127.0.0.1', 9, 0x02, 'POLICY_PORT'],
    ['nxdomain.test', 80, 0x04, 'EGRESS_DNS_FAILED'],
  ])('refuses %s:%i with reply %i (%s in the audit)', async (host, port, expected, code) => {
    const audit = memorySink();
    const proxy = await createEgressProxy({
      policy: tcpPolicy,
      guard: { resolve: resolve() },
      audit,
      principal,
      listen: { host: '127.0.0.1', port: 0 },
    });
    const { rep, socket } = await socksConnect(proxy, host, port);
    expect(rep).toBe(expected);
    socket.destroy();
    expect(audit.events[0]).toMatchObject({ decision: 'deny', code });
    await proxy.close();
  });

  it('denies without authorizeTcp, refuses BIND and UDP ASSOCIATE, and works on a unix socket', async () => {
    const noTcp = await createEgressProxy({
      policy: { authorizeHttp: () => ({ allow: true }) },
      principal,
      listen: { host: '127.0.0.1', port: 0 },
    });
    expect((await socksConnect(noTcp, '127.0.0.1', peer.tcpPort)).rep).toBe(0x02);
    await noTcp.close();
    const path = `${process.env.TMPDIR ?? '/tmp'}/egress-socks-${process.pid}.sock`;
    const proxy = await createEgressProxy({
      policy: tcpPolicy,
      guard: { resolve: resolve() },
      principal,
      listen: { path },
    });
    expect((await socksConnect(proxy, '127.0.0.1', peer.tcpPort, 0x02)).rep).toBe(0x07);
    expect((await socksConnect(proxy, '127.0.0.1', peer.tcpPort, 0x03)).rep).toBe(0x07);
    const ok = await socksConnect(proxy, '127.0.0.1', peer.tcpPort);
    expect(ok.rep).toBe(0x00);
    ok.socket.destroy();
    await proxy.close();
  });

  it('refuses clients that offer only username/password auth', async () => {
    const proxy = await createEgressProxy({ policy: tcpPolicy, principal, listen: { host: '127.0.0.1', port: 0 } });
    const s = await open(proxy);
    s.write(Buffer.from([0x05, 0x01, 0x02]));
    expect([...(await read(s, 2))]).toEqual([0x05, 0xff]);
    s.destroy();
    await proxy.close();
  });
});
