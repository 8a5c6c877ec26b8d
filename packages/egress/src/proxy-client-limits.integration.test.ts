import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver } from '@trust/testing';
import type { EgressPolicy, Principal } from '@trust/core';
import { createConnectionBudget } from './proxy-client-limits.js';
import { createEgressProxy, type EgressProxy, type EgressProxyOptions } from './proxy.js';
import {
  rawClient,
  startRecordingUpstream,
  statuses,
  type RawClient,
  type RecordingUpstream,
} from './proxy-test-upstream.js';
import { memorySink } from './test-fixtures.js';

// Regression (issue: idle and slow connections were never cut, nothing capped the connections):
// every deadline is the proxy's own, from the first byte, and each listener (one run) has a cap
// that another run's requests never feel. Deadlines are shortened by options.
const allowAll: EgressPolicy = { name: 'allow-all', authorizeHttp: () => ({ allow: true, rule: 'all' }) };
const runA: Principal = { kind: 'process', id: 'run-a' };
const runB: Principal = { kind: 'process', id: 'run-b' };
let up: RecordingUpstream;
const open: EgressProxy[] = [];

beforeAll(async () => {
  up = await startRecordingUpstream();
});
afterAll(async () => {
  await Promise.all(open.map((p) => p.close()));
  await up.close();
});

async function start(extra: Partial<EgressProxyOptions> = {}): Promise<EgressProxy & { port: number }> {
  const proxy = await createEgressProxy({
    policy: allowAll,
    guard: { resolve: createStubResolver({ 'public.test': ['127.0.0.1'] }) },
    principal: runA,
    listen: { host: '127.0.0.1', port: 0 },
    ...extra,
  });
  open.push(proxy);
  return Object.assign(proxy, { port: (proxy.address as { port: number }).port });
}

const get = (path = '/ok'): string => `GET http://public.test:${up.port}${path} HTTP/1.1\r\nHost: public.test\r\n\r\n`;

describe('the proxy bounds every client connection from its first byte', () => {
  it('a connection that sends nothing gets 408 after the first-byte deadline, audited', async () => {
    const audit = memorySink();
    const proxy = await start({ audit, clientLimits: { firstByteTimeoutMs: 100 } });
    const c = await rawClient(proxy.port);
    const got = await c.closed;
    expect(statuses(got)).toEqual([408]);
    expect(got).toContain('x-trust-deny: EGRESS_CLIENT_TIMEOUT');
    expect(got).toContain('no request arrived within 100 ms');
    expect(audit.events).toMatchObject([
      { decision: 'deny', code: expect.toBeTrustCode('EGRESS_CLIENT_TIMEOUT'), target: '<connection>' },
    ]);
  });

  it('a head dripped one byte at a time is cut at the header deadline with 408', async () => {
    const proxy = await start({ clientLimits: { headerTimeoutMs: 150 } });
    const c = await rawClient(proxy.port, 'G');
    const text = get();
    let i = 1;
    const drip = setInterval(() => {
      if (!c.socket.destroyed && i < text.length - 4) c.socket.write(text[i++] as string);
    }, 10);
    const got = await c.closed;
    clearInterval(drip);
    expect(statuses(got)).toEqual([408]);
    expect(got).toContain('the request head did not arrive complete within 150 ms');
    expect(i).toBeLessThan(text.length - 4);
  });

  it('a body dripped after a complete head is cut at the request deadline with 408, audited', async () => {
    const audit = memorySink();
    const proxy = await start({ audit, clientLimits: { requestTimeoutMs: 200 } });
    const head =
      `POST http://public.test:${up.port}/upload HTTP/1.1\r\n` + 'Host: public.test\r\nContent-Length: 1000\r\n\r\n';
    const c = await rawClient(proxy.port, head);
    const drip = setInterval(() => {
      if (!c.socket.destroyed) c.socket.write('x');
    }, 20);
    const got = await c.closed;
    clearInterval(drip);
    expect(statuses(got)).toEqual([408]);
    expect(got).toContain('the request body did not arrive complete within 200 ms');
    expect(audit.events.at(-1)).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('EGRESS_CLIENT_TIMEOUT'),
    });
  });

  it('a kept-alive connection is closed once idle for the idle deadline', async () => {
    const proxy = await start({ clientLimits: { idleTimeoutMs: 100 } });
    const c = await rawClient(proxy.port, get());
    const got = await c.closed;
    expect(statuses(got)).toEqual([200]);
  });

  it('a SOCKS5 handshake that stalls after its greeting is cut at the request deadline, audited', async () => {
    const audit = memorySink();
    const proxy = await start({ audit, clientLimits: { requestTimeoutMs: 150 } });
    const c = await rawClient(proxy.port);
    c.socket.write(Buffer.from([0x05, 0x01, 0x00]));
    await c.closed;
    expect(audit.events.at(-1)).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('EGRESS_CLIENT_TIMEOUT'),
    });
    expect(audit.events.at(-1)).toMatchObject({ rule: 'client-deadline', target: '<connection>' });
  });

  it('connections over the listener cap get 503 with the reason, audited', async () => {
    const audit = memorySink();
    const proxy = await start({ audit, clientLimits: { maxConnections: 2, firstByteTimeoutMs: 60_000 } });
    const held = [await rawClient(proxy.port), await rawClient(proxy.port)];
    const third = await rawClient(proxy.port);
    const got = await third.closed;
    expect(statuses(got)).toEqual([503]);
    expect(got).toContain('x-trust-deny: EGRESS_CONNECTION_LIMIT');
    expect(got).toContain('this run already holds 2 open connections');
    expect(audit.events).toMatchObject([{ decision: 'deny', code: expect.toBeTrustCode('EGRESS_CONNECTION_LIMIT') }]);
    for (const h of held) h.socket.destroy();
  });

  it('a shared budget caps the connections of all proxies together', async () => {
    const budget = createConnectionBudget({ maxConnections: 2 });
    const a = await start({ connectionBudget: budget, clientLimits: { firstByteTimeoutMs: 60_000 } });
    const b = await start({ connectionBudget: budget, principal: runB, clientLimits: { firstByteTimeoutMs: 60_000 } });
    const held = [await rawClient(a.port), await rawClient(b.port)];
    const refused = await (await rawClient(b.port)).closed;
    expect(refused).toContain("the host's 2 connections for all runs are in use");
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    await new Promise((r) => setTimeout(r, 20));
    expect(budget.open).toBe(0);
  });
});

describe('one run holding its maximum cannot starve another', () => {
  it("run A's idle and dripping connections at its cap leave run B's requests succeeding", async () => {
    const budget = createConnectionBudget({ maxConnections: 40 });
    const limits = { maxConnections: 20, firstByteTimeoutMs: 30_000, headerTimeoutMs: 30_000 };
    const a = await start({ connectionBudget: budget, clientLimits: limits });
    const b = await start({ connectionBudget: budget, principal: runB, clientLimits: limits });
    const held: RawClient[] = [];
    for (let i = 0; i < 10; i++) held.push(await rawClient(a.port));
    for (let i = 0; i < 10; i++) held.push(await rawClient(a.port, 'GET http://public.test/'));
    const drip = setInterval(() => {
      for (const h of held.slice(10)) if (!h.socket.destroyed) h.socket.write('a');
    }, 20);
    // A's next connections are refused; B's requests keep being answered meanwhile.
    const extra = await Promise.all([0, 1, 2].map(async () => (await rawClient(a.port)).closed));
    for (const got of extra) expect(statuses(got)).toEqual([503]);
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) {
      const c = await rawClient(b.port, get(`/b-${i}`).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
      answers.push(...statuses(await c.closed));
    }
    clearInterval(drip);
    expect(answers).toEqual(Array(10).fill(200));
    expect(held.every((h) => !h.socket.destroyed)).toBe(true);
    for (const h of held) h.socket.destroy();
  });
});
