// Faults: a dripping and a resetting upstream against the egress proxy and the egress client,
// a client that goes away, a dripping upload, and close() with requests in flight. Every peer
// is an in-process server on 127.0.0.1 (the guard's default mode allows loopback). Each case is
// bounded: a hang fails its own deadline, never the suite's.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryAuditSink, isTrustError, type EgressPolicy, type Principal } from '@trust/core';
import { createEgressClient, createEgressProxy, type EgressProxy } from '@trust/egress';

const principal: Principal = { kind: 'process', id: 'fault' };
const allowAll: EgressPolicy = { name: 'allow-all', authorizeHttp: () => ({ allow: true, rule: 'all' }) };

/** Upstream sockets that the server saw close, by path. */
const closed: Record<string, number> = {};
let upstream: Server;
let origin: string;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    req.socket.once('close', () => (closed[path] = (closed[path] ?? 0) + 1));
    if (path === '/drip') {
      // One byte every 50 ms, forever: never idle long enough for an idle timeout.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('x');
      const t = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(t));
      return;
    }
    if (path === '/reset') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100000' });
      res.write('y'.repeat(1000));
      setTimeout(() => (req.socket as Socket).resetAndDestroy(), 50);
      return;
    }
    if (path === '/upload') {
      // Reads whatever the client sends and answers only at its end.
      req.resume();
      req.on('end', () => res.end('done'));
      return;
    }
    res.end('ok');
  });
  await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
  origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((ok) => upstream.close(ok));
});

/** Rejects with `what` if `p` is not settled within `ms`: a hang becomes a failure. */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_ok, fail) => (timer = setTimeout(() => fail(new Error(`${what} did not finish within ${ms} ms`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** A GET through the proxy; resolves with how the response ended. */
function viaProxy(
  proxy: EgressProxy,
  path: string,
  onResponse?: (res: IncomingMessage) => void,
): Promise<{ status: number; ended: 'end' | 'aborted'; bytes: number }> {
  const { host, port } = proxy.address as { host: string; port: number };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host, port, method: 'GET', path: `${origin}${path}` }, (res) => {
      let bytes = 0;
      onResponse?.(res);
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ended: 'end', bytes }));
      res.on('aborted', () => resolve({ status: res.statusCode ?? 0, ended: 'aborted', bytes }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, ended: 'aborted', bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('fault: the egress proxy against dripping and resetting upstreams', () => {
  it(
    'a dripping upstream is cut at limits.totalTimeoutMs, audited ' + 'as EGRESS_TIMEOUT, and the upstream is closed',
    async () => {
      const audit = createMemoryAuditSink();
      const proxy = await createEgressProxy({
        policy: allowAll,
        audit,
        principal,
        listen: { host: '127.0.0.1', port: 0 },
        limits: { totalTimeoutMs: 600, bodyTimeoutMs: 60_000 },
      });
      try {
        const before = closed['/drip'] ?? 0;
        const r = await within(5000, 'the dripping request', viaProxy(proxy, '/drip'));
        expect(r).toMatchObject({ status: 200, ended: 'aborted' });
        await waitFor(() => (closed['/drip'] ?? 0) > before, 3000, 'the upstream connection closing');
        expect(audit.events().map((e) => e.code)).toContain('EGRESS_TIMEOUT');
      } finally {
        await within(5000, 'proxy.close()', proxy.close());
      }
    },
  );

  it('a client that goes away ends the upstream request', async () => {
    const proxy = await createEgressProxy({ policy: allowAll, principal, listen: { host: '127.0.0.1', port: 0 } });
    try {
      const before = closed['/drip'] ?? 0;
      await within(
        5000,
        'the first bytes',
        new Promise<void>((ok, fail) => {
          viaProxy(proxy, '/drip', (res) =>
            res.once('data', () => {
              res.socket.destroy();
              ok();
            }),
          ).catch(fail);
        }),
      );
      await waitFor(
        () => (closed['/drip'] ?? 0) > before,
        3000,
        'the upstream connection closing after the client left',
      );
    } finally {
      await within(5000, 'proxy.close()', proxy.close());
    }
  });

  it('a resetting upstream ends the client response at once, audited', async () => {
    const audit = createMemoryAuditSink();
    const proxy = await createEgressProxy({
      policy: allowAll,
      audit,
      principal,
      listen: { host: '127.0.0.1', port: 0 },
    });
    try {
      const r = await within(5000, 'the reset request', viaProxy(proxy, '/reset'));
      expect(r.ended).toBe('aborted');
      expect(r.bytes).toBeLessThan(100_000);
      await waitFor(
        () => audit.events().some((e) => e.details?.failure !== undefined),
        2000,
        'the failure audit event',
      );
    } finally {
      await within(5000, 'proxy.close()', proxy.close());
    }
  });

  it('a dripping upload is cut at limits.totalTimeoutMs too', async () => {
    const proxy = await createEgressProxy({
      policy: allowAll,
      principal,
      listen: { host: '127.0.0.1', port: 0 },
      limits: { totalTimeoutMs: 600 },
    });
    const { host, port } = proxy.address as { host: string; port: number };
    try {
      const outcome = await within(
        5000,
        'the dripping upload',
        new Promise<string>((resolve) => {
          const req = httpRequest(
            { host, port, method: 'POST', path: `${origin}/upload`, headers: { 'transfer-encoding': 'chunked' } },
            (res) => {
              res.resume();
              res.on('end', () => resolve(`status ${res.statusCode}`));
              res.on('error', () => resolve('aborted'));
            },
          );
          req.on('error', () => resolve('aborted'));
          const t = setInterval(() => req.write('z'), 50);
          req.on('close', () => clearInterval(t));
        }),
      );
      expect(outcome).toMatch(/^(status 504|aborted)$/);
    } finally {
      await within(5000, 'proxy.close()', proxy.close());
    }
  });

  it('close() ends requests still in flight after its grace period', async () => {
    const proxy = await createEgressProxy({
      policy: allowAll,
      principal,
      listen: { host: '127.0.0.1', port: 0 },
      closeGraceMs: 200,
    });
    const pending = viaProxy(proxy, '/drip');
    await new Promise((r) => setTimeout(r, 200));
    await within(3000, 'proxy.close() with a dripping request in flight', proxy.close());
    expect((await within(3000, 'the in-flight request', pending)).ended).toBe('aborted');
  });
});

describe('fault: createEgressClient against dripping and resetting upstreams', () => {
  const code = async (p: Promise<unknown>): Promise<string> => {
    try {
      await p;
      return 'resolved';
    } catch (e) {
      return isTrustError(e) ? e.code : `not a trust error: ${String(e)}`;
    }
  };

  it('a dripping streamed response hits the total deadline (fetch and request)', async () => {
    const client = createEgressClient({ policy: allowAll, limits: { totalTimeoutMs: 500, bodyTimeoutMs: 60_000 } });
    try {
      const res = await client.fetch(`${origin}/drip`, undefined, { principal });
      expect(await within(5000, 'reading the dripping fetch body', code(res.arrayBuffer()))).toBeTrustCode(
        'EGRESS_TIMEOUT',
      );
      const raw = await client.request(`${origin}/drip`, undefined, { principal });
      expect(
        await within(
          5000,
          'reading the dripping raw body',
          code(
            (async () => {
              for await (const _ of raw.body) {
                /* drain */
              }
            })(),
          ),
        ),
      ).toBeTrustCode('EGRESS_TIMEOUT');
    } finally {
      await within(5000, 'client.close()', client.close());
    }
  });

  it('a resetting upstream fails the body read with a coded error', async () => {
    const client = createEgressClient({ policy: allowAll });
    try {
      const res = await client.fetch(`${origin}/reset`, undefined, { principal });
      expect(await within(5000, 'reading the reset body', code(res.arrayBuffer()))).toMatch(
        /^EGRESS_(CONNECT_FAILED|PROTOCOL)$/,
      );
    } finally {
      await within(5000, 'client.close()', client.close());
    }
  });

  it('close() returns while a dripping response is still unread', async () => {
    const client = createEgressClient({ policy: allowAll, limits: { totalTimeoutMs: 60_000, bodyTimeoutMs: 60_000 } });
    const res = await client.fetch(`${origin}/drip`, undefined, { principal });
    await within(3000, 'client.close() with a dripping response in flight', client.close());
    expect(await within(3000, 'reading the body after close', code(res.arrayBuffer()))).not.toBe('resolved');
  });
});
