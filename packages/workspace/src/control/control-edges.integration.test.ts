// The control server's edges against real loopback sockets: nesting cap on bodies, repeated
// Host, the 413 answer, reserved trigger sources, slow-loris deadlines and the connection cap.
import { createMemoryAuditSink } from '@trust/core';
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createIdentity } from '@trust/agent-runtime';
import { composeMessage } from '@trust/agent-runtime';
import { createLocalMesh } from '@trust/agent-runtime';
import { createTestReceiver } from './test-receiver.test-helper.js';
import { call, createTestAgents } from './control-fixture.test-helper.js';
import { createControlServer, type ControlServerOptions } from './control-server.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function start(extra: Partial<ControlServerOptions> = {}) {
  const audit = createMemoryAuditSink();
  const server = await createControlServer({
    agents: createTestAgents(),
    tokenFile: join(mkdtempSync(join(tmpdir(), 'edges-')), 'token'),
    audit,
    ...extra,
  });
  cleanup.push(() => server.close());
  const api = (method: string, path: string, body?: string) =>
    call(server.port, {
      method,
      path: `/api/v1${path}`,
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
  return { server, audit, api };
}

/** A raw client: writes what it is told, records what comes back and when the server closed. */
function rawClient(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  cleanup.push(() => socket.destroy());
  let text = '';
  const opened = Date.now();
  socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)));
  return { socket, closed, text: () => text };
}

const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('control API bodies: nesting cap 64', () => {
  it('accepts a body nested 64 levels and refuses 65 with 400 INPUT_TOO_DEEP, audited', async () => {
    const { api, audit } = await start();
    await api('POST', '/agents/a1/chat', JSON.stringify({ text: 'go' })); // creates pending task t1
    const atCap = await api('POST', '/agents/a1/tasks/t1/approve', `{"args":${nest(63)}}`);
    expect(atCap.status).toBe(200);
    const over = await api('POST', '/agents/a1/tasks/t1/approve', `{"args":${nest(64)}}`);
    expect([over.status, over.json().error.code]).toEqual([400, 'INPUT_TOO_DEEP']);
    const far = await api('POST', '/agents/a1/tasks/t1/approve', `{"args":${nest(30_000)}}`);
    expect([far.status, far.json().error.code]).toEqual([400, 'INPUT_TOO_DEEP']);
    expect(audit.events().filter((e) => e.action === 'control.request' && e.code === 'INPUT_TOO_DEEP')).toHaveLength(2);
  });
});

describe('CSP reports (no token): nesting cap 64', () => {
  it('keeps a report nested 64 levels, refuses 65 with 400 INPUT_TOO_DEEP before it is kept', async () => {
    const { server, audit } = await start();
    const post = (body: string) =>
      call(server.port, {
        method: 'POST',
        path: '/csp-report',
        headers: { 'content-type': 'application/csp-report' },
        body,
      });
    expect((await post(`{"r":${nest(63)}}`)).status).toBe(204);
    const over = await post(`{"r":${nest(5000)}}`);
    expect([over.status, over.json().error.code]).toEqual([400, 'INPUT_TOO_DEEP']);
    expect(server.cspReports()).toHaveLength(1);
    expect(audit.events().filter((e) => e.code === 'INPUT_TOO_DEEP')).toHaveLength(1);
  });
});

describe('mesh inbox over HTTP: nesting cap 64', () => {
  it('delivers a message nested 64 levels (202), refuses 65 with 400 INPUT_TOO_DEEP', async () => {
    const rx = createTestReceiver();
    const mesh = createLocalMesh();
    mesh.register(rx.identity.did, rx.ingest);
    const { server } = await start({ mesh });
    const post = (depth: number) => {
      const msg = composeMessage(createIdentity(), {
        to: rx.identity.did,
        payload: { content: 'x', content_type: 'text/plain' },
        meta: { deep: JSON.parse(nest(depth - 2)) },
      });
      return call(server.port, {
        method: 'POST',
        path: `/mesh/v1/inbox/${encodeURIComponent(rx.identity.did)}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(msg),
      });
    };
    expect((await post(64)).status).toBe(202);
    const over = await post(65);
    expect([over.status, over.json().error.code]).toEqual([400, 'INPUT_TOO_DEEP']);
    expect(rx.audit.events().filter((e) => e.code === 'INPUT_TOO_DEEP')).toHaveLength(1);
    // A DID that is not valid percent-encoding is a bad request, not an internal error.
    const bad = await call(server.port, {
      method: 'POST',
      path: '/mesh/v1/inbox/%E0%A4%A',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([bad.status, bad.json().error.code]).toEqual([400, 'CONTROL_PATH_INVALID']);
  });
});

describe('trigger sources', () => {
  it.each(['\u200buser', '\uff35\uff33\uff25\uff32', 'user\u0000', ' user', 'us\u00ader', 'a'.repeat(65)])(
    'refuses the source %j with 400',
    async (source) => {
      const { api } = await start();
      const res = await api('POST', '/agents/a1/trigger', JSON.stringify({ source }));
      expect([res.status, res.json().error.code]).toEqual([
        400,
        source.length > 64 ? 'CONTROL_BAD_REQUEST' : 'CONTROL_TRIGGER_SOURCE_INVALID',
      ]);
    },
  );

  it.each(['user', 'Owner', 'SYSTEM'])('refuses the owner voice %j with 403', async (source) => {
    const { api } = await start();
    const res = await api('POST', '/agents/a1/trigger', JSON.stringify({ source }));
    expect([res.status, res.json().error.code]).toEqual([403, 'CONTROL_TRIGGER_SOURCE_FORBIDDEN']);
  });
});

describe('request framing', () => {
  it('answers two Host headers with 400 CONTROL_HOST_DUPLICATE', async () => {
    const { server } = await start();
    const c = rawClient(server.port);
    c.socket.write(
      `GET /api/v1/agents HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nHost: evil.test\r\n` +
        `Authorization: Bearer ${server.token}\r\nConnection: close\r\n\r\n`,
    );
    await c.closed;
    expect(c.text()).toMatch(/^HTTP\/1\.1 400 /);
    expect(c.text()).toContain('CONTROL_HOST_DUPLICATE');
  });

  it('a refused oversized body still reaches the client as 413 (the rest is drained, not reset)', async () => {
    const { server, api } = await start({ maxBodyBytes: 1024 });
    // A chunked body over the cap: the connection stays usable for the next request.
    const chunked = await call(server.port, {
      method: 'POST',
      path: '/api/v1/agents/a1/chat',
      headers: {
        authorization: `Bearer ${server.token}`,
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
      },
      body: JSON.stringify({ text: 'x'.repeat(5000) }),
    });
    expect(chunked.status).toBe(413);
    expect((await api('GET', '/agents')).status).toBe(200);
    // A client that is still sending when the answer comes, and reads it a little later (as a
    // busy client does). Closing with its bytes unread would reset the connection and discard
    // the answer from its receive buffer before it is read.
    for (let i = 0; i < 3; i++) {
      const c = rawClient(server.port);
      c.socket.pause();
      c.socket.write(
        `POST /api/v1/agents/a1/chat HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n` +
          `Authorization: Bearer ${server.token}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const chunk = Buffer.concat([
        Buffer.from(`${(64 * 1024).toString(16)}\r\n`),
        Buffer.alloc(64 * 1024, 0x20),
        Buffer.from('\r\n'),
      ]);
      // It keeps sending for a while: into a closed connection, a write fails and the client
      // loses the socket with the answer still unread in it.
      for (let k = 0; k < 8; k++) {
        c.socket.write(chunk);
        await new Promise((r) => setTimeout(r, 50));
      }
      c.socket.resume();
      await new Promise((r) => setTimeout(r, 100));
      expect(c.text()).toMatch(/^HTTP\/1\.1 413 /);
      expect(c.text()).toContain('CONTROL_BODY_TOO_LARGE');
      c.socket.destroy();
    }
  });
});

describe('slow and idle clients (small deadlines, real sockets)', () => {
  const timeouts = { headersMs: 600, requestMs: 600, keepAliveMs: 600, checkIntervalMs: 100 };

  it('closes a client that drips its headers one line at a time', async () => {
    const { server } = await start({ timeouts });
    const c = rawClient(server.port);
    c.socket.write(`GET /api/v1/agents HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`);
    const drip = setInterval(() => c.socket.write(`X-Drip-${Date.now()}: 1\r\n`), 100);
    cleanup.push(() => clearInterval(drip));
    // Deadline 600 ms + one 100 ms check; a generous bound for a loaded machine.
    expect(await c.closed).toBeLessThan(3000);
    clearInterval(drip);
  });

  it('closes a client that connects and sends nothing', async () => {
    const { server } = await start({ timeouts });
    expect(await rawClient(server.port).closed).toBeLessThan(3000);
  });

  it('closes a client that drips its body', async () => {
    const { server } = await start({ timeouts });
    const c = rawClient(server.port);
    c.socket.write(
      `POST /api/v1/agents/a1/chat HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n` +
        `Authorization: Bearer ${server.token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"',
    );
    const drip = setInterval(() => c.socket.write('x'), 100);
    cleanup.push(() => clearInterval(drip));
    expect(await c.closed).toBeLessThan(3000);
    clearInterval(drip);
  });

  it('the defaults close a dripping client within 12 s (documented bound), not Node’s 30 s check', async () => {
    const { DEFAULT_CONTROL_TIMEOUTS } = await import('./connection-limits.js');
    const { headersMs, requestMs, checkIntervalMs } = DEFAULT_CONTROL_TIMEOUTS;
    expect(Math.max(headersMs, requestMs) + checkIntervalMs).toBeLessThanOrEqual(12_000);
  });
});

describe('connection cap', () => {
  it('answers the connection over the cap with 503 CONTROL_BUSY, audited; a freed slot serves again', async () => {
    const { server, audit } = await start({ maxConnections: 3 });
    const held = [rawClient(server.port), rawClient(server.port), rawClient(server.port)];
    await new Promise((r) => setTimeout(r, 100));
    const over = rawClient(server.port);
    over.socket.write(
      `GET /api/v1/agents HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${server.token}\r\n\r\n`,
    );
    expect(await over.closed).toBeLessThan(5000);
    expect(over.text()).toMatch(/^HTTP\/1\.1 503 /);
    expect(over.text()).toContain('CONTROL_BUSY');
    expect(audit.events().filter((e) => e.action === 'control.connect' && e.code === 'CONTROL_BUSY')).toHaveLength(1);
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await new Promise((r) => setTimeout(r, 50));
    const res = await call(server.port, {
      path: '/api/v1/agents',
      headers: { authorization: `Bearer ${server.token}` },
    });
    expect(res.status).toBe(200);
  });
});
