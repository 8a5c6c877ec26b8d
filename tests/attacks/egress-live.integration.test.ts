// Attacks against the live egress paths (client fetch/webSocket/connectTcp, dispatcher, proxy).
// Every peer is an in-process server on 127.0.0.1; other addresses are only ever judged, never
// dialled (names resolve through injected resolvers to loopback addresses).
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryAuditSink, type EgressPolicy, type Principal } from '@trust/core';
import { createEgressClient, createEgressDispatcher, createEgressProxy, type EgressProxy } from '@trust/egress';

const principal: Principal = { kind: 'plugin', id: 'attacker' };
const call = { principal };
const allowAll: EgressPolicy = {
  name: 'allow-all',
  authorizeHttp: () => ({ allow: true, rule: 'all' }),
  authorizeTcp: () => ({ allow: true, rule: 'tcp-all' }),
};

interface Seen {
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
}
let peer: Server;
let daemon: Server;
let peerPort: number;
let daemonPort: number;
let daemonHits = 0;
const seen: Seen[] = [];
const BOMB = gzipSync(Buffer.alloc(16 * 1024 * 1024));

function listen(s: Server): Promise<number> {
  return new Promise((ok) => s.listen(0, '127.0.0.1', () => ok((s.address() as AddressInfo).port)));
}

beforeAll(async () => {
  peer = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://peer');
    seen.push({ path: u.pathname, headers: req.headers });
    if (u.pathname === '/to') {
      res.writeHead(Number(u.searchParams.get('s') ?? 302), { location: u.searchParams.get('l') ?? '/' });
      return res.end();
    }
    if (u.pathname === '/loop') {
      res.writeHead(302, { location: `/loop?n=${Number(u.searchParams.get('n') ?? 0) + 1}` });
      return res.end();
    }
    if (u.pathname === '/big-headers') {
      res.writeHead(200, { 'x-big': 'a'.repeat(200_000) });
      return res.end();
    }
    if (u.pathname === '/slow-headers') {
      // Slow-loris: a status line, then one header line at a time, forever.
      res.socket?.write('HTTP/1.1 200 OK\r\n');
      const t = setInterval(
        () => (res.socket && !res.socket.destroyed ? res.socket.write('x-drip: 1\r\n') : clearInterval(t)),
        50,
      );
      return;
    }
    if (u.pathname === '/gzip-bomb') {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': BOMB.length });
      return res.end(BOMB);
    }
    if (u.pathname === '/endless-body') {
      res.writeHead(200);
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(Buffer.alloc(64 * 1024))), 1);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('peer-ok');
  });
  daemon = createServer((_req, res) => {
    daemonHits++;
    res.end('DAEMON');
  });
  daemon.on('connect', (_req, socket) => {
    daemonHits++;
    socket.end('HTTP/1.1 200 OK\r\n\r\nDAEMON');
  });
  peerPort = await listen(peer);
  daemonPort = await listen(daemon);
});

afterAll(async () => {
  peer?.closeAllConnections();
  daemon?.closeAllConnections();
  await Promise.all([peer, daemon].map((s) => new Promise((ok) => (s ? s.close(ok) : ok(undefined)))));
  expect(daemonHits, 'the protected daemon must never have been reached').toBe(0);
});

describe('attack: redirect into a blocked destination (client.fetch)', () => {
  const targets = (): string[] => [
    `http://127.0.0.1:${daemonPort}/`,
    `http://127.1:${daemonPort}/`,
    `http://0x7f000001:${daemonPort}/`,
    `http://[::1]:${daemonPort}/`,
    `http://[::ffff:127.0.0.1]:${daemonPort}/`,
    `http://localhost:${daemonPort}/`,
    `http://x.localhost.:${daemonPort}/`,
    `//127.0.0.1:${daemonPort}/`,
    `/\\127.0.0.1:${daemonPort}/`,
    `\\\\127.0.0.1:${daemonPort}`,
    `///127.0.0.1:${daemonPort}/`,
    `http://0.0.0.0:${peerPort}/`,
    `http://[::]:${peerPort}/`,
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://10.0.0.1/',
    `http://a@127.0.0.1:${peerPort}/`,
    'file:///etc/passwd',
    'data:text/plain,owned',
    `gopher://127.0.0.1:${daemonPort}/_x`,
    `ws://127.0.0.1:${peerPort}/`,
    'javascript:alert(1)',
  ];
  it('every redirect target is re-judged and refused; the daemon is never reached', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { protectedPorts: [daemonPort] } });
    try {
      for (const location of targets()) {
        for (const status of [302, 307]) {
          const url = `http://127.0.0.1:${peerPort}/to?s=${status}&l=${encodeURIComponent(location)}`;
          const err = await client.fetch(url, undefined, call).then(
            () => undefined,
            (e: { code?: string }) => e,
          );
          expect(err, `${status} -> ${location}`).toBeDefined();
          expect(err?.code, `${status} -> ${location}`).toMatch(
            /^EGRESS_(PROTECTED_PORT|UNSPECIFIED|METADATA|PRIVATE_ADDRESS|USERINFO|REDIRECT_SCHEME)$/,
          );
        }
      }
    } finally {
      await client.close();
    }
  });

  it('an endless redirect loop stops at maxRedirects', async () => {
    const client = createEgressClient({ policy: allowAll, limits: { maxRedirects: 3 } });
    try {
      const before = seen.filter((s) => s.path === '/loop').length;
      await expect(client.fetch(`http://127.0.0.1:${peerPort}/loop`, undefined, call)).rejects.toHaveTrustCode(
        'EGRESS_TOO_MANY_REDIRECTS',
      );
      expect(seen.filter((s) => s.path === '/loop').length - before).toBe(4);
    } finally {
      await client.close();
    }
  });

  it('a policy that denies the redirect target stops the hop (policy runs on every hop)', async () => {
    const onlyIp: EgressPolicy = {
      name: 'only-ip',
      authorizeHttp: (r) =>
        r.host === '127.0.0.1'
          ? { allow: true, rule: 'ip' }
          : { allow: false, code: 'EGRESS_POLICY_DENIED', reason: 'no' },
    };
    const client = createEgressClient({ policy: onlyIp });
    try {
      const l = encodeURIComponent(`http://localhost:${peerPort}/echo`);
      await expect(client.fetch(`http://127.0.0.1:${peerPort}/to?l=${l}`, undefined, call)).rejects.toHaveTrustCode(
        'EGRESS_POLICY_DENIED',
      );
    } finally {
      await client.close();
    }
  });
});

describe('attack: credential leakage across origins and into audit/errors', () => {
  it(
    'Authorization, Cookie and Proxy-Authorization are dropped on a ' +
      'cross-origin hop; policy-injected secrets stay per-origin',
    async () => {
      const injecting: EgressPolicy = {
        name: 'inject',
        authorizeHttp: (r) => {
          if (r.host === '127.0.0.1') r.headers.set('x-api-key', 'INJECTED-SECRET');
          return { allow: true, rule: 'all' };
        },
      };
      const client = createEgressClient({ policy: injecting });
      try {
        for (const [status, method] of [
          [302, 'GET'],
          [307, 'POST'],
          [308, 'PUT'],
        ] as const) {
          const l = encodeURIComponent(`http://localhost:${peerPort}/landed`);
          const res = await client.fetch(
            `http://127.0.0.1:${peerPort}/to?s=${status}&l=${l}`,
            {
              method,
              body: method === 'GET' ? undefined : 'payload',
              headers: {
                authorization: 'Bearer CALLER-SECRET',
                cookie: 'sid=COOKIE-SECRET',
                'proxy-authorization': 'Basic PROXY-SECRET',
              },
            },
            call,
          );
          expect(await res.text()).toBe('peer-ok');
          const landed = seen.filter((s) => s.path === '/landed').at(-1);
          expect(landed?.headers.host).toBe(`localhost:${peerPort}`);
          expect(landed?.headers.authorization).toBeUndefined();
          expect(landed?.headers.cookie).toBeUndefined();
          expect(landed?.headers['proxy-authorization']).toBeUndefined();
          expect(landed?.headers['x-api-key']).toBeUndefined();
        }
      } finally {
        await client.close();
      }
    },
  );

  it('secret header values and query values never reach audit events or error messages', async () => {
    const audit = createMemoryAuditSink();
    const injecting: EgressPolicy = {
      name: 'inject',
      authorizeHttp: (r) => {
        r.headers.set('x-api-key', 'INJECTED-SECRET');
        return { allow: true, rule: 'all' };
      },
    };
    const client = createEgressClient({ policy: injecting, audit, guard: { protectedPorts: [daemonPort] } });
    const headers = { authorization: 'Bearer CALLER-SECRET', cookie: 'sid=COOKIE-SECRET' };
    const messages: string[] = [];
    const capture = (e: unknown) =>
      messages.push(`${(e as Error).message} ${JSON.stringify(e)} ${String((e as { cause?: Error }).cause?.message)}`);
    try {
      await (await client.fetch(`http://127.0.0.1:${peerPort}/ok?token=QUERY-SECRET`, { headers }, call)).text();
      await client.fetch(`http://127.0.0.1:${daemonPort}/?token=QUERY-SECRET`, { headers }, call).catch(capture);
      await client.fetch(`http://127.0.0.1:1/?token=QUERY-SECRET`, { headers }, call).catch(capture); // refused
      await client.fetch(`http://user:PASS-SECRET@127.0.0.1:${peerPort}/`, { headers }, call).catch(capture);
      await client
        .fetch(
          `http://127.0.0.1:${peerPort}/to?l=${encodeURIComponent('file:///x?token=QUERY-SECRET')}&token=QUERY-SECRET`,
          { headers },
          call,
        )
        .catch(capture);
      await client
        .fetch(`http://127.0.0.1:${peerPort}/big-headers?token=QUERY-SECRET`, { headers }, call)
        .catch(capture);
    } finally {
      await client.close();
    }
    expect(messages).toHaveLength(5);
    const text = `${JSON.stringify(audit.events())}\n${messages.join('\n')}`;
    for (const secret of ['CALLER-SECRET', 'COOKIE-SECRET', 'INJECTED-SECRET', 'QUERY-SECRET', 'PASS-SECRET'])
      expect(text).not.toContain(secret);
    expect(audit.events().length).toBeGreaterThanOrEqual(6);
  });
});

describe('attack: DNS rebinding between the pre-flight check and the connect', () => {
  // Strict mode opens exactly 127.0.0.1 via allowCidrs; 127.0.0.2 stands in for "internal".
  const guardWith = (answers: string[]) => {
    let n = 0;
    return {
      mode: 'strict' as const,
      allowCidrs: ['127.0.0.1/32'],
      cacheTtlMs: 0,
      resolve: async () => [answers[Math.min(n++, answers.length - 1)] as string],
    };
  };

  it(
    'client.fetch: the pre-check sees an allowed answer, the ' + 'connector a blocked one, and the connect is refused',
    async () => {
      const client = createEgressClient({ policy: allowAll, guard: guardWith(['127.0.0.1', '127.0.0.2']) });
      try {
        await expect(client.fetch(`http://rebind.test:${peerPort}/rebind`, undefined, call)).rejects.toHaveTrustCode(
          'EGRESS_LOOPBACK',
        );
        expect(seen.some((s) => s.path === '/rebind')).toBe(false);
      } finally {
        await client.close();
      }
    },
  );

  it('raw dispatcher: a pooled reconnect after the name rebinds is judged again', async () => {
    const d = createEgressDispatcher({ guard: guardWith(['127.0.0.1', '127.0.0.2']) });
    try {
      const first = await d.request({ origin: `http://rebind.test:${peerPort}`, path: '/pooled-1', method: 'GET' });
      expect(await first.body.text()).toBe('peer-ok');
      peer.closeAllConnections();
      await new Promise((r) => setTimeout(r, 50));
      await expect(
        d.request({ origin: `http://rebind.test:${peerPort}`, path: '/pooled-2', method: 'GET' }),
      ).rejects.toHaveTrustCode('EGRESS_LOOPBACK');
      await expect(
        d.request({ origin: `http://[::ffff:127.0.0.2]:${peerPort}`, path: '/pooled-3', method: 'GET' }),
      ).rejects.toHaveTrustCode('EGRESS_LOOPBACK');
      expect(seen.some((s) => s.path === '/pooled-2' || s.path === '/pooled-3')).toBe(false);
    } finally {
      await d.close();
    }
  });
});

describe('attack: hostile peers (oversized headers, slow-loris, decompression bomb, endless body)', () => {
  it('each is cut off with a stable code', async () => {
    const client = createEgressClient({
      policy: allowAll,
      limits: {
        maxHeaderBytes: 16 * 1024,
        headersTimeoutMs: 200,
        maxResponseBytes: 1024 * 1024,
        totalTimeoutMs: 20_000,
      },
    });
    try {
      const get = async (path: string) => {
        const res = await client.fetch(`http://127.0.0.1:${peerPort}${path}`, undefined, call);
        await res.arrayBuffer();
        return 'read';
      };
      await expect(get('/big-headers')).rejects.toHaveTrustCode('EGRESS_HEADERS_TOO_LARGE');
      await expect(get('/slow-headers')).rejects.toHaveTrustCode('EGRESS_TIMEOUT');
      await expect(get('/gzip-bomb')).rejects.toHaveTrustCode('EGRESS_RESPONSE_TOO_LARGE');
      await expect(get('/endless-body')).rejects.toHaveTrustCode('EGRESS_RESPONSE_TOO_LARGE');
    } finally {
      await client.close();
    }
  });
});

describe('attack: other outbound paths to the protected daemon (webSocket, connectTcp)', () => {
  it('webSocket and connectTcp refuse every spelling of the daemon', async () => {
    const client = createEgressClient({ policy: allowAll, guard: { protectedPorts: [daemonPort] } });
    try {
      for (const host of ['127.0.0.1', '127.1', 'localhost', '[::1]', '[::ffff:7f00:1]', '0x7f.1']) {
        await expect(client.webSocket(`ws://${host}:${daemonPort}/`, { principal }), host).rejects.toHaveTrustCode(
          'EGRESS_PROTECTED_PORT',
        );
      }
      await expect(client.webSocket(`ws://0.0.0.0:${daemonPort}/`, { principal })).rejects.toHaveTrustCode(
        'EGRESS_UNSPECIFIED',
      );
      await expect(client.webSocket(`ws://u:p@127.0.0.1:${peerPort}/`, { principal })).rejects.toHaveTrustCode(
        'EGRESS_USERINFO',
      );
      for (const host of [
        '127.0.0.1',
        '127.1',
        '2130706433',
        'localhost',
        'LOCALHOST.',
        '::1',
        '[::1]',
        '::ffff:127.0.0.1',
        '%31%32%37.0.0.1',
      ]) {
        await expect(client.connectTcp(host, daemonPort, call), host).rejects.toHaveTrustCode('EGRESS_PROTECTED_PORT');
      }
      for (const host of ['0', '0.0.0.0', '::', '[::]'])
        await expect(client.connectTcp(host, peerPort, call), host).rejects.toHaveTrustCode('EGRESS_UNSPECIFIED');
      for (const host of [
        `127.0.0.1:${daemonPort}`,
        'a@127.0.0.1',
        '127.0.0.1/x',
        ' 127.0.0.1',
        '127.0.0.1\n',
        'x\\@127.0.0.1',
        '',
        '[fe80::1%eth0]',
      ]) {
        await expect(client.connectTcp(host, peerPort, call), JSON.stringify(host)).rejects.toHaveTrustCode(
          'EGRESS_TARGET_INVALID',
        );
      }
      for (const port of [0, -1, 65536, 1.5, Number.NaN])
        await expect(client.connectTcp('127.0.0.1', port, call)).rejects.toHaveTrustCode('EGRESS_TARGET_INVALID');
    } finally {
      await client.close();
    }
  });
});

describe('attack: the forward proxy and CONNECT', () => {
  let proxy: EgressProxy;
  const audit = createMemoryAuditSink();
  beforeAll(async () => {
    proxy = await createEgressProxy({
      policy: allowAll,
      audit,
      principal: { kind: 'process', id: 'run-attack' },
      listen: { host: '127.0.0.1', port: 0 },
      guard: { protectedPorts: [daemonPort], resolve: async (h) => (h === 'rebind.test' ? ['127.0.0.1'] : []) },
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  /** Sends raw bytes to the proxy; returns the status line and whole reply. */
  function raw(text: string): Promise<{ status: string; body: string }> {
    const { port } = proxy.address as { port: number };
    return new Promise((ok) => {
      const s = connect(port, '127.0.0.1', () => s.write(text));
      let body = '';
      const done = () => ok({ status: body.split('\r\n')[0] ?? '', body });
      s.on('data', (d) => (body += String(d)));
      s.on('close', done);
      s.on('error', done);
      s.setTimeout(3000, () => s.destroy());
    });
  }

  it('absolute-form requests for the daemon in any spelling are 403; origin-form is 400', async () => {
    for (const host of [
      `127.0.0.1:${daemonPort}`,
      `127.1:${daemonPort}`,
      `[::1]:${daemonPort}`,
      `[::ffff:127.0.0.1]:${daemonPort}`,
      `localhost:${daemonPort}`,
      `rebind.test:${daemonPort}`,
      `0.0.0.0:${peerPort}`,
      '169.254.169.254',
    ]) {
      const r = await raw(`GET http://${host}/ HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(r.status, host).toBe('HTTP/1.1 403 Forbidden');
      expect(r.body).toMatch(/x-trust-deny: EGRESS_/);
    }
    const origin = await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${daemonPort}\r\nConnection: close\r\n\r\n`);
    expect(origin.status).toBe('HTTP/1.1 400 Bad Request');
    for (const u of ['file:///etc/passwd', `gopher://127.0.0.1:${peerPort}/`, `http://a@127.0.0.1:${peerPort}/`]) {
      expect((await raw(`GET ${u} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).status, u).toMatch(
        /^HTTP\/1\.1 40[03]/,
      );
    }
  });

  it(
    'a Host header naming the daemon does not steer an allowed ' +
      'absolute-form request; Proxy-Authorization is not forwarded',
    async () => {
      const r = await raw(
        `GET http://127.0.0.1:${peerPort}/via-proxy HTTP/1.1\r\nHost: ` +
          `127.0.0.1:${daemonPort}\r\nProxy-Authorization: Basic PROXY-SECRET\r\nConnection: ` +
          `close\r\n\r\n`,
      );
      expect(r.status).toBe('HTTP/1.1 200 OK');
      expect(r.body).toContain('peer-ok');
      const hit = seen.filter((s) => s.path === '/via-proxy').at(-1);
      expect(hit?.headers.host).toBe(`127.0.0.1:${peerPort}`);
      expect(hit?.headers['proxy-authorization']).toBeUndefined();
      expect(JSON.stringify(audit.events())).not.toContain('PROXY-SECRET');
    },
  );

  it('forward-proxy denials never put userinfo or query values into the audit trail or the reply', async () => {
    const r = await raw(
      `GET http://u:FWD-PASSWORD@127.0.0.1:${peerPort}/?k=FWD-QUERY HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(r.status).toBe('HTTP/1.1 403 Forbidden');
    const r2 = await raw(
      `GET http://127.0.0.1:${daemonPort}/?k=FWD-QUERY HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(r2.status).toBe('HTTP/1.1 403 Forbidden');
    const text = `${JSON.stringify(audit.events())}${r.body}${r2.body}`;
    expect(text).not.toContain('FWD-PASSWORD');
    expect(text).not.toContain('FWD-QUERY');
  });

  it(
    'CONNECT to the daemon in any spelling is 403, malformed ' + 'authorities are 400, and an allowed tunnel works',
    async () => {
      for (const a of [
        `127.0.0.1:${daemonPort}`,
        `127.1:${daemonPort}`,
        `2130706433:${daemonPort}`,
        `[::1]:${daemonPort}`,
        `[::ffff:127.0.0.1]:${daemonPort}`,
        `localhost:${daemonPort}`,
        `LOCALHOST.:${daemonPort}`,
        `rebind.test:${daemonPort}`,
        `127.0.0.1.:${daemonPort}`,
        `127.0.0.1:0${daemonPort}`,
        `%31%32%37.0.0.1:${daemonPort}`,
        `0:${peerPort}`,
        `[::]:${peerPort}`,
        '169.254.169.254:443',
      ]) {
        const r = await raw(`CONNECT ${a} HTTP/1.1\r\nHost: 127.0.0.1:${peerPort}\r\n\r\n`);
        expect(r.status, a).toBe('HTTP/1.1 403 Forbidden');
      }
      for (const a of [
        `127.0.0.1`,
        `127.0.0.1:${peerPort}/x`,
        `a@127.0.0.1:${peerPort}`,
        `http://127.0.0.1:${daemonPort}/`,
        `127.0.0.1:${daemonPort + 65536}`,
        `[fe80::1%25lo]:${peerPort}`,
      ]) {
        const r = await raw(`CONNECT ${a} HTTP/1.1\r\nHost: x\r\n\r\n`);
        expect(r.status, a).toBe('HTTP/1.1 400 Bad Request');
      }
      const ok = await raw(
        `CONNECT 127.0.0.1:${peerPort} HTTP/1.1\r\nHost: 127.0.0.1:${daemonPort}\r\n\r\n` +
          'GET /tunnelled HTTP/1.0\r\n\r\n',
      );
      expect(ok.status).toBe('HTTP/1.1 200 Connection Established');
      expect(ok.body).toContain('peer-ok');
    },
  );
});
