// SOCKS5 UDP ASSOCIATE through the proxy's datagram channel, against the UDP echo listener of a
// real peer child process on 127.0.0.1.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import type { EgressPolicy } from '@trust/core';
import { createEgressProxy, type EgressProxy } from './proxy.js';
import { memorySink, principal } from './test-fixtures.js';
import { parseUdpDatagram, udpFrame } from './udp-relay.js';

import type { Deny } from '@trust/core';
// A policy's own deny code, which the type system does not know: JS policies may return one.
type OwnCode = Deny['code'];

let peer: Peer;
const resolve = createStubResolver({ 'echo.test': ['127.0.0.1'], 'lan.test': ['10.9.9.9'] });
const policy: EgressPolicy = {
  name: 'udp-gate',
  authorizeHttp: () => ({ allow: false, code: 'NO_HTTP' as OwnCode, reason: 'no http' }),
  authorizeUdp: (p) =>
    p.host === 'blocked.test'
      ? { allow: false, code: 'POLICY_UDP_HOST' as OwnCode, reason: 'not this one' }
      : { allow: true, rule: 'udp' },
};

beforeAll(async () => {
  peer = await startPeer();
});
afterAll(async () => peer.close());

function dial(proxy: EgressProxy): Promise<Socket> {
  const a = proxy.address as { host: string; port: number };
  return new Promise((ok, fail) => {
    const s = connect(a.port, a.host, () => ok(s));
    s.once('error', fail);
  });
}

/** Reads exactly `n` bytes (or fewer if the socket ends first). */
function readBytes(s: Socket, n: number): Promise<Buffer> {
  return new Promise((ok) => {
    let got = Buffer.alloc(0);
    const on = (c: Buffer): void => {
      got = Buffer.concat([got, c]);
      if (got.length >= n) {
        s.off('data', on);
        s.pause();
        const rest = got.subarray(n);
        if (rest.length > 0) s.unshift(rest);
        ok(got.subarray(0, n));
      }
    };
    s.on('data', on);
    s.resume();
    s.once('end', () => ok(got));
  });
}

async function associate(
  proxy: EgressProxy,
  port = 0,
): Promise<{ control: Socket; rep: number; bound: { ip: string; port: number } }> {
  const control = await dial(proxy);
  control.write(Buffer.from([0x05, 0x01, 0x00]));
  await readBytes(control, 2);
  const p = Buffer.alloc(2);
  p.writeUInt16BE(port);
  control.write(Buffer.concat([Buffer.from([0x05, 0x03, 0x00, 0x01, 0, 0, 0, 0]), p]));
  const r = await readBytes(control, 10);
  return { control, rep: r[1] as number, bound: { ip: [...r.subarray(4, 8)].join('.'), port: r.readUInt16BE(8) } };
}

function named(host: string, port: number, data: string): Buffer {
  const p = Buffer.alloc(2);
  p.writeUInt16BE(port);
  return Buffer.concat([Buffer.from([0, 0, 0, 0x03, host.length]), Buffer.from(host), p, Buffer.from(data)]);
}

async function channel(proxy: EgressProxy): Promise<Socket> {
  const s = await dial(proxy);
  s.write(Buffer.from([0x00]));
  return s;
}

async function nextFrame(s: Socket): Promise<{ port: number; datagram: Buffer }> {
  const head = await readBytes(s, 4);
  const body = await readBytes(s, head.readUInt16BE(0) - 2);
  return { port: head.readUInt16BE(2), datagram: body };
}

const settle = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('SOCKS5 UDP ASSOCIATE through a datagram channel', () => {
  it('relays to an allowed peer and back; the destination is judged and audited once', async () => {
    const audit = memorySink();
    const proxy = await createEgressProxy({
      policy,
      guard: { resolve },
      audit,
      principal,
      listen: { host: '127.0.0.1', port: 0 },
      udp: { announce: { host: '127.0.0.1', port: 3128 } },
    });
    const a = await associate(proxy);
    expect(a.rep).toBe(0x00);
    expect(a.bound).toEqual({ ip: '127.0.0.1', port: 3128 });
    const ch = await channel(proxy);
    ch.write(udpFrame(40001, named('echo.test', peer.udpPort, 'ping-1')));
    const f1 = await nextFrame(ch);
    expect(f1.port).toBe(40001);
    expect(parseUdpDatagram(f1.datagram)).toMatchObject({ host: '127.0.0.1', port: peer.udpPort });
    expect(parseUdpDatagram(f1.datagram)!.data.toString()).toBe('ping-1');
    ch.write(udpFrame(40001, named('echo.test', peer.udpPort, 'ping-2')));
    expect(parseUdpDatagram((await nextFrame(ch)).datagram)!.data.toString()).toBe('ping-2');
    expect(audit.events).toHaveLength(1);
    expect(audit.events[0]).toMatchObject({
      action: 'egress.udp',
      decision: 'allow',
      target: `udp://echo.test:${peer.udpPort}`,
    });
    expect(audit.events[0]!.details).toMatchObject({ via: 'socks5-udp', dialled: '127.0.0.1' });
    a.control.destroy();
    ch.destroy();
    await proxy.close();
  });

  it(
    'refuses denied destinations (policy and guard), datagrams without ' +
      'an association, and ends with the control connection',
    async () => {
      const audit = memorySink();
      const proxy = await createEgressProxy({
        policy,
        guard: { resolve },
        audit,
        principal,
        listen: { host: '127.0.0.1', port: 0 },
        udp: { announce: { host: '127.0.0.1', port: 3128 } },
      });
      const a = await associate(proxy, 40002);
      const ch = await channel(proxy);
      ch.write(udpFrame(40002, named('blocked.test', peer.udpPort, 'x')));
      ch.write(udpFrame(40002, named('lan.test', 53, 'x')));
      ch.write(udpFrame(40003, named('echo.test', peer.udpPort, 'stranger'))); // no association for this port
      await settle(() => audit.events.length >= 3);
      expect(audit.events.map((e) => `${e.decision}:${e.code}`).sort()).toEqual([
        'deny:EGRESS_POLICY_DENIED',
        'deny:EGRESS_PRIVATE_ADDRESS',
        'deny:POLICY_UDP_HOST',
      ]);
      expect(
        audit.events.every((e) => e.action === 'egress.udp' && (e.details as { via?: string }).via === 'socks5-udp'),
      ).toBe(true);
      expect(audit.events.some((e) => e.target === 'udp://(unassociated)')).toBe(true); // port 40003
      a.control.destroy();
      // Once the proxy has seen the control connection close, port 40002 has no association either.
      // (Probes go to names the stub resolver does not know, so nothing is ever relayed.)
      const before = audit.events.length;
      for (let i = 0; i < 200 && !audit.events.slice(before).some((e) => e.target === 'udp://(unassociated)'); i++) {
        ch.write(udpFrame(40002, named(`nowhere-${i}.test`, 53, 'probe')));
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(audit.events.slice(before).some((e) => e.target === 'udp://(unassociated)')).toBe(true);
      expect((await peer.stats()).udpMessages).not.toContain('stranger');
      ch.destroy();
      await proxy.close();
    },
  );

  it('without the udp option, ASSOCIATE is refused with reply 0x07', async () => {
    const proxy = await createEgressProxy({
      policy,
      guard: { resolve },
      principal,
      listen: { host: '127.0.0.1', port: 0 },
    });
    const a = await associate(proxy);
    expect(a.rep).toBe(0x07);
    a.control.destroy();
    await proxy.close();
  });
});
