/**
 * In-thread plugins and the network, on each runtime. With WebAssembly JSPI (Node >= 24) a plugin
 * on the host's own thread may use `http`: the componentize-js guest (fixtures/fetcher.js) calls a
 * loopback peer through @trust/egress, its HTTP imports suspend it while egress runs on this
 * thread's event loop. Without JSPI (Node 20, 22) such a load is refused as before. Raw sockets
 * need a worker on every runtime. Each leg of CI runs the half that matches its runtime.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { rejectionOf } from '@trust/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPeer, type Peer } from '@trust/testing';
import type { AuditEvent, AuditInput, EgressPolicy } from '@trust/core';
import { fixture, tempDir } from '../test/helpers.js';
import { hasJspi } from './jspi.js';
import { createPluginHost, type Plugin, type PluginHost } from './plugin-host.js';

const tmp = tempDir('wasm-in-thread-http-');
const hosts: PluginHost[] = [];
const events: AuditInput[] = [];
const audit = {
  record: (e: AuditInput) => {
    events.push(e);
    return e as AuditEvent;
  },
};
let peer: Peer;
/** A server on this very thread: it can answer only while the thread's event loop runs. */
let local: Server;
let localPort = 0;

/** Allows the loopback peer and the local server only, and injects a credential. */
const policy: EgressPolicy = {
  name: 'loopback-peers',
  authorizeHttp: (req) => {
    if (req.host !== '127.0.0.1' || (req.port !== peer.httpPort && req.port !== localPort))
      return { allow: false, code: 'EGRESS_POLICY_DENIED', reason: `${req.host}:${req.port} is not allowed` };
    req.headers.set('authorization', 'Bearer in-thread');
    return { allow: true, rule: 'loopback-peers' };
  },
  authorizeTcp: () => ({ allow: true, rule: 'any' }),
};

function host(opts: Parameters<typeof createPluginHost>[0] = {}): PluginHost {
  const h = createPluginHost({
    requireSignature: false,
    cacheDir: join(tmp.dir, 'cache'),
    audit,
    guard: { mode: 'allow-local' },
    egress: policy,
    isolation: 'in-thread',
    ...opts,
  });
  hosts.push(h);
  return h;
}

const run = (p: Plugin, cmd: string, arg = '') => p.call('run', cmd, arg) as Promise<string>;

beforeAll(async () => {
  peer = await startPeer({
    routes: {
      '/echo': { kind: 'echo' },
      '/huge': { kind: 'huge-body', bytes: 1024 * 1024 },
      '/small': { kind: 'text', body: 'small' },
    },
  });
  local = createServer((req, res) => {
    // answers late, so the guest is certainly waiting on it while this thread serves it
    setTimeout(() => res.end(`local saw ${req.headers.authorization}`), 50);
  });
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  localPort = (local.address() as AddressInfo).port;
});

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await peer?.close();
  await new Promise((resolve) => local?.close(resolve));
  tmp.cleanup();
});

it('finds JSPI exactly on Node 24 and newer (so each CI leg runs the half meant for it)', () => {
  expect(hasJspi()).toBe(Number(process.versions.node.split('.')[0]) >= 24);
});

describe('raw sockets need a worker on every runtime', () => {
  it.each([[['http', 'tcp', 'udp']], [['network', 'http']]])(
    'refuses an in-thread plugin granted %j',
    async (grants) => {
      const err = await rejectionOf(() => host().load(fixture('probe'), { grants }));
      expect(err.code).toBeTrustCode('WASM_ISOLATION_REQUIRED');
      expect(err.message).toMatch(/socket capabilities/);
    },
  );
});

if (hasJspi()) {
  describe('in-thread http under JSPI (this runtime has WebAssembly.Suspending)', () => {
    let p: Plugin;
    beforeAll(async () => {
      p = await host().load(fixture('fetcher'), { id: 'in-thread-http', grants: ['http'] });
    });

    it('reaches the allowed peer through egress, which injects the credential and audits the request', async () => {
      await peer.clear();
      const res = JSON.parse(
        await run(p, 'fetch', JSON.stringify({ url: `${peer.origin}/echo`, headers: { x: 'y' } })),
      );
      expect(res.status).toBe(200);
      const seen = await peer.requests();
      expect(seen).toHaveLength(1);
      expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer in-thread', x: 'y' });
      expect(
        events.some((e) => e.action === 'egress.http' && e.principal.id === 'in-thread-http' && e.decision === 'allow'),
      ).toBe(true);
    });

    it('keeps the event loop running while the guest waits: a server on this same thread answers it', async () => {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      try {
        const res = JSON.parse(await run(p, 'fetch', JSON.stringify({ url: `http://127.0.0.1:${localPort}/` })));
        expect(res).toEqual({ status: 200, body: 'local saw Bearer in-thread' });
      } finally {
        clearInterval(timer);
      }
      expect(ticks).toBeGreaterThan(0);
    });

    it('streams a request body of several chunks and the echoed response back', async () => {
      await peer.clear();
      const size = 300 * 1024;
      const res = JSON.parse(await run(p, 'post', JSON.stringify({ url: `${peer.origin}/echo`, size })));
      expect(res).toMatchObject({ status: 200, seen: size });
      expect((await peer.requests())[0]!.body.length).toBe(size);
    });

    it('fails the guest read of a response above the cap, and the plugin carries on', async () => {
      const capped = await host({ limits: { maxHttpResponseBytes: 256 * 1024 } }).load(fixture('fetcher'), {
        id: 'in-thread-capped',
        grants: ['http'],
      });
      expect(await run(capped, 'fetch-length', `${peer.origin}/huge`)).toMatch(/^ERROR: /);
      expect(capped.dead).toBeUndefined();
      expect(JSON.parse(await run(capped, 'fetch-length', `${peer.origin}/small`))).toEqual({ status: 200, bytes: 5 });
    });

    it('is denied by the policy before anything is sent', async () => {
      await peer.clear();
      const denied = await host({
        egress: { name: 'none', authorizeHttp: () => ({ allow: false, code: 'EGRESS_POLICY_DENIED', reason: 'no' }) },
      }).load(fixture('fetcher'), { id: 'in-thread-denied', grants: ['http'] });
      expect(await run(denied, 'fetch', JSON.stringify({ url: `${peer.origin}/echo` }))).toMatch(/^ERROR: /);
      expect(await peer.requests()).toHaveLength(0);
      expect(denied.dead).toBeUndefined();
    });

    it('runs concurrent calls to one plugin one after the other', async () => {
      await peer.clear();
      const urls = [1, 2, 3].map((i) => JSON.stringify({ url: `${peer.origin}/echo?n=${i}` }));
      const results = await Promise.all(urls.map((u) => run(p, 'fetch', u)));
      expect(results.map((r) => JSON.parse(r).status)).toEqual([200, 200, 200]);
      expect(await peer.requests()).toHaveLength(3);
    });
  });
} else {
  describe('in-thread http without JSPI (this runtime has no WebAssembly.Suspending)', () => {
    it('refuses an in-thread plugin granted http, and says what to do instead', async () => {
      const err = await rejectionOf(() => host().load(fixture('fetcher'), { grants: ['http'] }));
      expect(err.code).toBeTrustCode('WASM_ISOLATION_REQUIRED');
      expect(err.message).toMatch(/network capabilities, which need worker isolation/);
    });
  });
}
