/**
 * End-to-end tests with the componentize-js guest (fixtures/probe.js) in worker threads: env,
 * filesystem (ro/rw, traversal, symlinks, cross-descriptor rename/link), stdio, HTTP through
 * @trust/egress to a loopback peer in a child process (bodies streamed in both directions), TCP,
 * UDP (send and receive), name lookup through the egress guard, and the `network` floor.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rejectionOf } from '@trust/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import type { AuditEvent, AuditInput, EgressPolicy } from '@trust/core';
import { denyAllPolicy, fixture, startUdpPeer, tempDir } from '../test/helpers.js';
import { createPluginHost, type Plugin, type PluginHost } from './plugin-host.js';

const tmp = tempDir('wasm-probe-');
const cacheDir = join(tmp.dir, 'cache');
const dirA = join(tmp.dir, 'a');
const dirRO = join(tmp.dir, 'ro');
const dirB = join(tmp.dir, 'b');
let peer: Peer;
let udpPeer: Awaited<ReturnType<typeof startUdpPeer>>;
const hosts: PluginHost[] = [];
const events: AuditInput[] = [];
const audit = {
  record: (e: AuditInput) => {
    events.push(e);
    return e as AuditEvent;
  },
};

/** Allows the loopback peer only, injects a credential, allows TCP/UDP to the peer. */
const peerPolicy = (): EgressPolicy => ({
  name: 'peer-only',
  authorizeHttp: (req) => {
    if (req.host !== '127.0.0.1' || req.port !== peer.httpPort)
      return { allow: false, code: 'EGRESS_POLICY_DENIED', reason: `${req.host} is not allowed` };
    req.headers.set('authorization', 'Bearer injected-for-a');
    return { allow: true, rule: 'peer-only' };
  },
  authorizeTcp: (p) =>
    p.port === peer.tcpPort
      ? { allow: true, rule: 'peer-tcp' }
      : { allow: false, code: 'EGRESS_POLICY_DENIED', reason: 'port not allowed' },
  authorizeUdp: (p) =>
    p.port === udpPeer.port
      ? { allow: true, rule: 'peer-udp' }
      : { allow: false, code: 'EGRESS_POLICY_DENIED', reason: 'port not allowed' },
});

function host(opts: Parameters<typeof createPluginHost>[0] = {}): PluginHost {
  const h = createPluginHost({
    requireSignature: false,
    cacheDir,
    audit,
    env: { A_TOKEN: 'a-secret', B_ONLY: 'b' },
    guard: { mode: 'allow-local' },
    ...opts,
  });
  hosts.push(h);
  return h;
}

let a: Plugin;
let b: Plugin;
const run = (p: Plugin, cmd: string, arg = '') => p.call('run', cmd, arg) as Promise<string>;

beforeAll(async () => {
  for (const d of [dirA, dirRO, dirB]) mkdirSync(d, { recursive: true });
  writeFileSync(join(dirRO, 'hello.txt'), 'hello from ro');
  writeFileSync(join(dirB, 'b.txt'), 'hello from b');
  writeFileSync(join(tmp.dir, 'secret.txt'), 'outside');
  symlinkSync('/etc', join(dirA, 'abs-out'));
  symlinkSync('../..', join(dirA, 'rel-out'));
  peer = await startPeer({
    routes: {
      '/echo': { kind: 'echo' },
      '/stall': { kind: 'stall' },
      '/huge': { kind: 'huge-body', bytes: 1024 * 1024 },
      '/small': { kind: 'text', body: 'small' },
    },
  });
  udpPeer = await startUdpPeer();
  const h = host({ egress: peerPolicy() });
  a = await h.load(fixture('probe'), {
    id: 'plugin-a',
    grants: ['env:A_TOKEN', `fs:rw:${dirA}`, `fs:ro:${dirRO}`, 'stdout', 'http', 'tcp', 'udp'],
  });
  b = await h.load(fixture('probe'), {
    id: 'plugin-b',
    grants: [`fs:ro:${dirB}`, 'http', 'tcp', 'udp'],
    egress: denyAllPolicy,
  });
});

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await peer?.close();
  await udpPeer?.close();
  tmp.cleanup();
});

describe('env and isolation between plugins', () => {
  it('each plugin sees only its own grants', async () => {
    expect(JSON.parse(await run(a, 'env'))).toEqual([['A_TOKEN', 'a-secret']]);
    expect(JSON.parse(await run(b, 'env'))).toEqual([]);
    expect(await run(a, 'preopens')).toBe(`${dirA},${dirRO}`);
    expect(await run(b, 'preopens')).toBe(dirB);
    expect(await run(b, 'read', join(dirA, 'x.txt'))).toBe('ERROR: no-preopen');
    expect(await run(b, 'read', join(dirB, 'b.txt'))).toBe('hello from b');
  });

  it('captures stdout per plugin and discards ungranted stderr', async () => {
    expect(await run(a, 'print', 'from-a')).toBe('ok');
    expect(await run(b, 'print', 'from-b')).toBe('ok');
    expect(a.output().stdout).toContain('from-a');
    expect(a.output().stderr).toBe('');
    expect(b.output()).toEqual({ stdout: '', stderr: '' });
  });
});

describe('filesystem', () => {
  it('rw: writes land on the host and read back', async () => {
    expect(await run(a, 'write', `${join(dirA, 'w.txt')}\nwritten by a`)).toBe('ok');
    expect(readFileSync(join(dirA, 'w.txt'), 'utf8')).toBe('written by a');
    expect(await run(a, 'read', join(dirA, 'w.txt'))).toBe('written by a');
    expect(await run(a, 'mkdir', join(dirA, 'sub'))).toBe('ok');
    expect(await run(a, 'ls', dirA)).toContain('sub');
  });

  it('ro: reads work, every mutation is refused and nothing reaches the host', async () => {
    expect(await run(a, 'read', join(dirRO, 'hello.txt'))).toBe('hello from ro');
    expect(await run(a, 'ls', dirRO)).toBe('hello.txt');
    expect(await run(a, 'write', `${join(dirRO, 'new.txt')}\nx`)).toBe('ERROR: read-only');
    expect(await run(a, 'write', `${join(dirRO, 'hello.txt')}\nx`)).toBe('ERROR: read-only');
    expect(await run(a, 'mkdir', join(dirRO, 'd'))).toBe('ERROR: read-only');
    expect(await run(a, 'unlink', join(dirRO, 'hello.txt'))).toBe('ERROR: read-only');
    expect(await run(a, 'symlink', `hello.txt\n${join(dirRO, 'l')}`)).toBe('ERROR: read-only');
    expect(existsSync(join(dirRO, 'new.txt'))).toBe(false);
    expect(readFileSync(join(dirRO, 'hello.txt'), 'utf8')).toBe('hello from ro');
  });

  it('refuses cross-descriptor rename and link into or out of a read-only tree', async () => {
    writeFileSync(join(dirA, 'move-me.txt'), 'm');
    expect(await run(a, 'rename', `${join(dirA, 'move-me.txt')}\n${join(dirRO, 'moved.txt')}`)).toBe(
      'ERROR: read-only',
    );
    expect(await run(a, 'link', `${join(dirA, 'move-me.txt')}\n${join(dirRO, 'linked.txt')}`)).toBe('ERROR: read-only');
    expect(await run(a, 'rename', `${join(dirRO, 'hello.txt')}\n${join(dirA, 'stolen.txt')}`)).toBe('ERROR: read-only');
    expect(await run(a, 'link', `${join(dirRO, 'hello.txt')}\n${join(dirA, 'hl.txt')}`)).toBe('ERROR: read-only');
    expect(
      existsSync(join(dirRO, 'moved.txt')) || existsSync(join(dirRO, 'linked.txt')) || existsSync(join(dirA, 'hl.txt')),
    ).toBe(false);
    expect(await run(a, 'rename', `${join(dirA, 'move-me.txt')}\n${join(dirA, 'moved.txt')}`)).toBe('ok');
  });

  it('makes traversal and symlink escapes impossible', async () => {
    expect(await run(a, 'read', `${dirA}/../secret.txt`)).toMatch(/^ERROR: /);
    expect(await run(a, 'read', join(dirA, 'abs-out', 'passwd'))).toMatch(/^ERROR: /);
    expect(await run(a, 'read', join(dirA, 'rel-out', 'secret.txt'))).toMatch(/^ERROR: /);
    expect(await run(a, 'symlink', `/etc\n${join(dirA, 'made-by-guest')}`)).toMatch(/^ERROR: /);
    expect(await run(a, 'read', '/etc/passwd')).toBe('ERROR: no-preopen');
  });
});

describe('http through @trust/egress', () => {
  it('reaches the allowed peer, which sees the injected credential', async () => {
    await peer.clear();
    const res = JSON.parse(
      await run(a, 'fetch', JSON.stringify({ url: `${peer.origin}/echo`, headers: { 'x-from-guest': 'yes' } })),
    );
    expect(res.status).toBe(200);
    const seen = await peer.requests();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer injected-for-a', 'x-from-guest': 'yes' });
    expect(
      events.some((e) => e.action === 'egress.http' && e.principal.id === 'plugin-a' && e.decision === 'allow'),
    ).toBe(true);
  });

  it('is denied by the policy before anything is sent', async () => {
    await peer.clear();
    expect(await run(b, 'fetch', JSON.stringify({ url: `${peer.origin}/echo` }))).toMatch(/^ERROR: /);
    expect(await peer.requests()).toHaveLength(0);
    expect(
      events.some((e) => e.action === 'egress.http' && e.principal.id === 'plugin-b' && e.decision === 'deny'),
    ).toBe(true);
  });

  it('is denied by the strict address guard for loopback and metadata addresses', async () => {
    const allowAll: EgressPolicy = { name: 'allow-all', authorizeHttp: () => ({ allow: true, rule: 'all' }) };
    const strict = host({ egress: allowAll, guard: { mode: 'strict' } });
    const c = await strict.load(fixture('probe'), { id: 'plugin-c', grants: ['http', 'tcp', 'udp'], egress: allowAll });
    await peer.clear();
    expect(await run(c, 'fetch', JSON.stringify({ url: `${peer.origin}/echo` }))).toMatch(/^ERROR: /);
    expect(await run(c, 'fetch', JSON.stringify({ url: 'http://169.254.169.254/latest/meta-data/' }))).toMatch(
      /^ERROR: /,
    );
    expect(await peer.requests()).toHaveLength(0);
    const denials = events
      .filter((e) => e.principal.id === 'plugin-c' && e.action === 'egress.http' && e.decision === 'deny')
      .map((e) => e.code);
    expect(denials).toEqual(expect.arrayContaining(['EGRESS_LOOPBACK', 'EGRESS_METADATA']));
  });

  it('fails closed at load without a host policy', async () => {
    const err = await rejectionOf(() => host().load(fixture('probe'), { grants: ['http', 'tcp', 'udp'] }));
    expect(err.code).toBeTrustCode('WASM_EGRESS_POLICY_MISSING');
  });

  it('times out a stalled peer per request and the plugin stays usable', async () => {
    const h = host({ egress: peerPolicy(), limits: { httpTimeoutMs: 300 } });
    const p = await h.load(fixture('probe'), { id: 'plugin-timeout', grants: ['http', 'tcp', 'udp'] });
    expect(await run(p, 'fetch', JSON.stringify({ url: `${peer.origin}/stall` }))).toMatch(/^ERROR: /);
    expect(p.dead).toBeUndefined();
    expect(JSON.parse(await run(p, 'fetch', JSON.stringify({ url: `${peer.origin}/echo` }))).status).toBe(200);
  });
});

describe('tcp, udp and the network floor', () => {
  it('echoes through an allowed tcp peer and refuses others, and bind/listen', async () => {
    expect(await run(a, 'tcp', `127.0.0.1:${peer.tcpPort}\nping`)).toBe('ping');
    expect(await run(a, 'tcp', `127.0.0.1:${peer.httpPort}\nping`)).toBe('ERROR: access-denied');
    expect(await run(b, 'tcp', `127.0.0.1:${peer.tcpPort}\nping`)).toBe('ERROR: access-denied');
    expect(await run(a, 'listen')).toBe('ERROR: access-denied');
  });

  it('sends udp datagrams to allowed peers only', async () => {
    expect(await run(a, 'udp', `127.0.0.1:${udpPeer.port}\nhello-udp`)).toBe('sent 1');
    expect(await run(a, 'udp', `127.0.0.1:${udpPeer.port + 1}\nnope`)).toBe('ERROR: access-denied');
    expect(await run(b, 'udp', `127.0.0.1:${udpPeer.port}\nnope`)).toBe('ERROR: access-denied');
    await expect.poll(() => udpPeer.received()).toContain('hello-udp');
    expect(udpPeer.received()).not.toContain('nope');
  });

  it('applies the address floor to the coarse network tier', async () => {
    const coarse = host({ egress: denyAllPolicy, guard: { mode: 'strict' } });
    const n = await coarse.load(fixture('probe'), { id: 'plugin-net', grants: ['network', 'http'] });
    expect(await run(n, 'tcp', `127.0.0.1:${peer.tcpPort}\nping`)).toBe('ERROR: access-denied');
    expect(await run(n, 'tcp', `169.254.169.254:80\nping`)).toBe('ERROR: access-denied');
    const denials = events
      .filter((e) => e.principal.id === 'plugin-net' && e.action === 'egress.tcp' && e.decision === 'deny')
      .map((e) => e.code);
    expect(denials).toEqual(['EGRESS_LOOPBACK', 'EGRESS_METADATA']);
  });
});

describe('streamed http bodies', () => {
  it('streams a request body of several chunks to the peer and the echoed response back', async () => {
    await peer.clear();
    const size = 300 * 1024; // the bridge moves at most 64 KiB per call
    const res = JSON.parse(await run(a, 'post', JSON.stringify({ url: `${peer.origin}/echo`, size })));
    expect(res).toMatchObject({ status: 200, seen: size });
    expect(res.responseBytes).toBeGreaterThan(size);
    const seen = await peer.requests();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body.length).toBe(size);
  });

  it('fails the guest read of a response above the cap, and the plugin carries on', async () => {
    const h = host({ egress: peerPolicy(), limits: { maxHttpResponseBytes: 256 * 1024 } });
    const p = await h.load(fixture('probe'), { id: 'plugin-capped', grants: ['http', 'tcp', 'udp'] });
    expect(await run(p, 'fetch-length', `${peer.origin}/huge`)).toMatch(/^ERROR: /);
    expect(p.dead).toBeUndefined();
    expect(JSON.parse(await run(p, 'fetch-length', `${peer.origin}/small`))).toEqual({ status: 200, bytes: 5 });
  });

  it('reports a denial of a streamed request as an error, and the plugin carries on', async () => {
    await peer.clear();
    expect(await run(b, 'post', JSON.stringify({ url: `${peer.origin}/echo`, size: 300 * 1024 }))).toMatch(/^ERROR: /);
    expect(b.dead).toBeUndefined();
    expect(await peer.requests()).toHaveLength(0);
    expect(await run(b, 'env')).toBe('[]');
  });

  it('refuses a request body above the cap', async () => {
    const h = host({ egress: peerPolicy(), limits: { maxHttpRequestBytes: 100 * 1024 } });
    const p = await h.load(fixture('probe'), { id: 'plugin-small-body', grants: ['http', 'tcp', 'udp'] });
    await peer.clear();
    expect(await run(p, 'post', JSON.stringify({ url: `${peer.origin}/echo`, size: 300 * 1024 }))).toMatch(/^ERROR: /);
    expect(p.dead).toBeUndefined();
    expect((await peer.requests()).filter((r) => r.body.length > 100 * 1024)).toEqual([]);
    expect(JSON.parse(await run(p, 'post', JSON.stringify({ url: `${peer.origin}/echo`, size: 10 })))).toMatchObject({
      status: 200,
      seen: 10,
    });
  });
});

describe('udp receive', () => {
  it('round-trips a datagram with an allowed peer through a connected socket', async () => {
    expect(await run(a, 'udp-echo', `127.0.0.1:${udpPeer.port}\nround-trip`)).toBe(
      `echo:round-trip from 127.0.0.1:${udpPeer.port}`,
    );
    expect(
      events.some(
        (e) =>
          e.action === 'egress.udp' &&
          e.principal.id === 'plugin-a' &&
          e.decision === 'allow' &&
          e.target === `udp://127.0.0.1:${udpPeer.port}`,
      ),
    ).toBe(true);
  });

  it('refuses to connect a socket to a peer the policy denies', async () => {
    expect(await run(a, 'udp-echo', `127.0.0.1:${udpPeer.port + 1}\nnope`)).toBe('ERROR: access-denied');
    expect(await run(b, 'udp-echo', `127.0.0.1:${udpPeer.port}\nnope-b`)).toBe('ERROR: access-denied');
    expect(udpPeer.received()).not.toContain('nope-b');
  });
});

describe('name lookup through the egress guard', () => {
  const resolve = createStubResolver({
    'peer.test': ['127.0.0.1'],
    'meta.test': ['169.254.169.254'],
    'mixed.test': ['127.0.0.1', '169.254.169.254'],
  });
  /**
   * TCP by name only (HTTP denied, UDP absent = denied): the policy sees the name the guest looked
   * up, with the address as `ip`.
   */
  const byName = (allowed: string): EgressPolicy => ({
    name: `tcp-${allowed}`,
    authorizeHttp: () => ({ allow: false, code: 'EGRESS_POLICY_DENIED', reason: 'no http' }),
    authorizeTcp: (p) =>
      p.host === allowed && p.ip === '127.0.0.1' && p.port === peer.tcpPort
        ? { allow: true, rule: `name:${allowed}` }
        : { allow: false, code: 'EGRESS_POLICY_DENIED', reason: `${p.host} is not ${allowed}` },
  });

  it('hands out only addresses the guard allows, and audits every lookup', async () => {
    const h = host({ egress: byName('peer.test'), guard: { mode: 'allow-local', resolve } });
    const p = await h.load(fixture('probe'), { id: 'plugin-dns', grants: ['http', 'tcp', 'udp'] });
    expect(await run(p, 'lookup', 'peer.test')).toBe('127.0.0.1');
    expect(await run(p, 'lookup', 'meta.test')).toBe('ERROR: access-denied');
    expect(await run(p, 'lookup', 'mixed.test')).toBe('ERROR: access-denied');
    expect(await run(p, 'lookup', 'missing.test')).toBe('ERROR: name-unresolvable');
    const dns = events.filter((e) => e.principal.id === 'plugin-dns' && e.action === 'egress.dns');
    expect(dns.map((e) => [e.target, e.decision, e.code])).toEqual([
      ['dns://peer.test', 'allow', undefined],
      ['dns://meta.test', 'deny', 'EGRESS_METADATA'],
      ['dns://mixed.test', 'deny', 'EGRESS_METADATA'],
      ['dns://missing.test', 'deny', 'EGRESS_DNS_FAILED'],
    ]);
  });

  it('connects to a looked-up address only when the policy allows the name', async () => {
    const allowed = await host({ egress: byName('peer.test'), guard: { mode: 'allow-local', resolve } }).load(
      fixture('probe'),
      { id: 'plugin-dns-ok', grants: ['http', 'tcp', 'udp'] },
    );
    expect(await run(allowed, 'tcp-name', `peer.test:${peer.tcpPort}\nping`)).toBe('ping');
    const other = await host({ egress: byName('other.test'), guard: { mode: 'allow-local', resolve } }).load(
      fixture('probe'),
      { id: 'plugin-dns-denied', grants: ['http', 'tcp', 'udp'] },
    );
    expect(await run(other, 'tcp-name', `peer.test:${peer.tcpPort}\nping`)).toBe('ERROR: access-denied');
  });

  it('is denied to a plugin without a socket capability: the imports link deny-all, each call fails', async () => {
    const h = host({ egress: peerPolicy(), guard: { mode: 'allow-local', resolve } });
    const p = await h.load(fixture('probe'), { id: 'plugin-no-sockets', grants: ['http'] });
    expect(await run(p, 'lookup', 'peer.test')).toBe('ERROR: access-denied');
    expect(await run(p, 'tcp', `127.0.0.1:${peer.tcpPort}\nping`)).toBe('ERROR: access-denied');
    expect(await run(p, 'udp', '127.0.0.1:9\nping')).toBe('ERROR: access-denied');
  });
});
