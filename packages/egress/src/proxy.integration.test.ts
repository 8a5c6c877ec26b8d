import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import type { EgressPolicy } from '@trust/core';
import { createEgressProxy, type EgressProxy } from './proxy.js';
import { memorySink, principal } from './test-fixtures.js';

import type { Deny } from '@trust/core';
// A policy's own deny code, which the type system does not know: JS policies may return one.
type OwnCode = Deny['code'];

let peer: Peer;
const dir = mkdtempSync(join(tmpdir(), 'egress-proxy-'));
const resolve = () => createStubResolver({ 'public.test': ['127.0.0.1'], 'lan.test': ['10.1.2.3'] });
const allowAll: EgressPolicy = {
  name: 'allow-all',
  authorizeHttp: () => ({ allow: true, rule: 'all' }),
  authorizeTcp: () => ({ allow: true, rule: 'tcp-all' }),
};

type Via = { socketPath: string } | { host: string; port: number };
function via(proxy: EgressProxy): Via {
  return 'path' in proxy.address
    ? { socketPath: proxy.address.path }
    : { host: proxy.address.host, port: proxy.address.port };
}

function forward(
  proxy: EgressProxy,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((ok, fail) => {
    const req = httpRequest({ ...via(proxy), method: 'GET', path: url, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

/** CONNECT, then (if 200) one HTTP/1.0 request over the tunnel. */
function tunnel(
  proxy: EgressProxy,
  authority: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((ok, fail) => {
    const req = httpRequest({ ...via(proxy), method: 'CONNECT', path: authority });
    req.on('connect', (res, socket: Socket, head: Buffer) => {
      if (res.statusCode !== 200) {
        let body = head.toString('utf8');
        socket.on('data', (c) => (body += c));
        socket.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
        socket.on('close', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
        return;
      }
      let raw = '';
      socket.on('data', (c) => (raw += c));
      socket.on('end', () => ok({ status: 200, headers: res.headers, body: raw }));
      socket.write(`GET /echo HTTP/1.0\r\nHost: ${authority}\r\n\r\n`);
    });
    req.on('error', fail);
    req.end();
  });
}

beforeAll(async () => {
  peer = await startPeer({ routes: { '/echo': { kind: 'echo' } } });
});
afterAll(async () => {
  await peer.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('createEgressProxy on a loopback port', () => {
  it(
    'forwards an allowed absolute-form request, strips ' + 'Proxy-Authorization, audits with the listener principal',
    async () => {
      const audit = memorySink();
      const proxy = await createEgressProxy({
        policy: allowAll,
        guard: { resolve: resolve() },
        audit,
        principal,
        listen: { host: '127.0.0.1', port: 0 },
      });
      expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await forward(proxy, `http://public.test:${peer.httpPort}/echo?k=v`, {
        'proxy-authorization': 'Basic c2VjcmV0',
        'x-trust-principal': 'someone-else',
      });
      expect(res.status).toBe(200);
      const echo = JSON.parse(res.body) as { path: string; headers: Record<string, string> };
      expect(echo.path).toBe('/echo?k=v');
      expect(echo.headers['proxy-authorization']).toBeUndefined();
      expect(audit.events).toHaveLength(1);
      expect(audit.events[0]).toMatchObject({
        principal,
        decision: 'allow',
        action: 'egress.http',
        target: `http://public.test:${peer.httpPort}/echo?k=REDACTED`,
      });
      expect(audit.events[0]!.details).toMatchObject({ via: 'proxy', dialled: '127.0.0.1' });
      await proxy.close();
    },
  );

  it('denies a forward request to a private address with 403, x-trust-deny and a reason', async () => {
    const proxy = await createEgressProxy({
      policy: allowAll,
      guard: { resolve: resolve() },
      principal,
      listen: { host: '127.0.0.1', port: 0 },
    });
    const res = await forward(proxy, 'http://lan.test/');
    expect(res.status).toBe(403);
    expect(res.headers['x-trust-deny']).toBeTrustCode('EGRESS_PRIVATE_ADDRESS');
    expect(res.body).toContain('10.1.2.3:80 is a private');
    await proxy.close();
  });

  it('tunnels an allowed CONNECT to the vetted address', async () => {
    const audit = memorySink();
    const proxy = await createEgressProxy({
      policy: allowAll,
      guard: { resolve: resolve() },
      audit,
      principal,
      listen: { host: '127.0.0.1', port: 0 },
    });
    const res = await tunnel(proxy, `public.test:${peer.httpPort}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatch(/^HTTP\/1\.1 200/);
    expect(res.body).toContain('"path":"/echo"');
    expect(audit.events[0]).toMatchObject({ decision: 'allow', target: `connect://public.test:${peer.httpPort}` });
    await proxy.close();
  });

  it.each([
    ['169.254.169.254:443', 'EGRESS_METADATA'],
    ['lan.test:443', 'EGRESS_PRIVATE_ADDRESS'],
    ['[::]:443', 'EGRESS_UNSPECIFIED'],
  ])('refuses CONNECT %s with 403 %s', async (authority, code) => {
    const proxy = await createEgressProxy({
      policy: allowAll,
      guard: { resolve: resolve() },
      principal,
      listen: { host: '127.0.0.1', port: 0 },
    });
    const res = await tunnel(proxy, authority);
    expect(res.status).toBe(403);
    expect(res.headers['x-trust-deny']).toBe(code);
    expect(res.body.length).toBeGreaterThan(0);
    await proxy.close();
  });

  it('judges CONNECT with authorizeTcp when connectAs is tcp (absent = deny)', async () => {
    const httpOnly: EgressPolicy = { authorizeHttp: () => ({ allow: true }) };
    const proxy = await createEgressProxy({
      policy: httpOnly,
      guard: { resolve: resolve() },
      principal,
      listen: { host: '127.0.0.1', port: 0 },
      connectAs: 'tcp',
    });
    const res = await tunnel(proxy, `127.0.0.1:${peer.httpPort}`);
    expect(res.status).toBe(403);
    expect(res.headers['x-trust-deny']).toBeTrustCode('EGRESS_NO_TCP_POLICY');
    await proxy.close();
  });
});

describe('one principal per listener', () => {
  it('the listener decides the principal; a client cannot claim another', async () => {
    const onlyA: EgressPolicy = {
      name: 'only-a',
      authorizeHttp: (_req, ctx) =>
        ctx.principal.id === 'run-a'
          ? { allow: true, rule: 'run-a' }
          : { allow: false, code: 'POLICY_PRINCIPAL' as OwnCode, reason: `${ctx.principal.id} may not egress` },
    };
    const audit = memorySink();
    const a = await createEgressProxy({
      policy: onlyA,
      guard: { resolve: resolve() },
      audit,
      principal: { kind: 'process', id: 'run-a' },
      listen: { host: '127.0.0.1', port: 0 },
    });
    const b = await createEgressProxy({
      policy: onlyA,
      guard: { resolve: resolve() },
      audit,
      principal: { kind: 'process', id: 'run-b' },
      listen: { host: '127.0.0.1', port: 0 },
    });
    expect((await forward(a, `http://public.test:${peer.httpPort}/echo`)).status).toBe(200);
    const denied = await forward(b, `http://public.test:${peer.httpPort}/echo`, {
      'proxy-authorization': 'run-a',
      'x-principal': 'run-a',
    });
    expect(denied.status).toBe(403);
    expect(denied.headers['x-trust-deny']).toBe('POLICY_PRINCIPAL');
    expect((await tunnel(b, `public.test:${peer.httpPort}`)).status).toBe(403);
    expect(audit.events.map((e) => [e.principal.id, e.decision])).toEqual([
      ['run-a', 'allow'],
      ['run-b', 'deny'],
      ['run-b', 'deny'],
    ]);
    await a.close();
    await b.close();
  });
});

describe('createEgressProxy on a unix socket', () => {
  it('listens on the path, forwards, tunnels and denies; close removes the socket', async () => {
    const path = join(dir, 'run-1.sock');
    const proxy = await createEgressProxy({
      policy: allowAll,
      guard: { resolve: resolve() },
      principal,
      listen: { path },
    });
    expect(proxy.address).toEqual({ path });
    expect(proxy.url).toBeUndefined();
    expect(existsSync(path)).toBe(true);
    expect((await forward(proxy, `http://public.test:${peer.httpPort}/echo`)).status).toBe(200);
    expect((await tunnel(proxy, `127.0.0.1:${peer.httpPort}`)).status).toBe(200);
    const denied = await tunnel(proxy, '169.254.169.254:80');
    expect(denied.headers['x-trust-deny']).toBeTrustCode('EGRESS_METADATA');
    await proxy.close();
    expect(existsSync(path)).toBe(false);
  });
});

describe('listener safety', () => {
  it('refuses to listen on a non-loopback address', async () => {
    await expect(
      createEgressProxy({ policy: allowAll, principal, listen: { host: '0.0.0.0' as '127.0.0.1', port: 0 } }),
    ).rejects.toHaveTrustCode('EGRESS_OPTIONS_INVALID');
  });
});
