// The mesh WebSocket listener shares the control server's edge: upgraded sockets count against
// its connection cap, and a client dripping its upgrade request meets the same deadlines.
import { createMemoryAuditSink } from '@trust/core';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createLocalMesh } from '@trust/agent-runtime';
import { createTestReceiver } from './test-receiver.test-helper.js';
import { createTestAgents } from './control-fixture.test-helper.js';
import { createControlServer, type ControlServerOptions } from './control-server.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function start(extra: Partial<ControlServerOptions>) {
  const rx = createTestReceiver();
  const mesh = createLocalMesh();
  mesh.register(rx.identity.did, rx.ingest);
  const audit = createMemoryAuditSink();
  const server = await createControlServer({
    agents: createTestAgents(),
    tokenFile: join(mkdtempSync(join(tmpdir(), 'ws-edges-')), 'token'),
    mesh,
    audit,
    ...extra,
  });
  cleanup.push(() => server.close());
  return {
    server,
    audit,
    endpoint: `${server.url.replace('http:', 'ws:')}/mesh/v1/ws/${encodeURIComponent(rx.identity.did)}`,
  };
}

/** Opens a socket; resolves with its first frame, or the HTTP status and body of a refused upgrade. */
function open(url: string): Promise<{ ws: WebSocket; first?: unknown; status?: number; body?: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    cleanup.push(() => ws.terminate());
    ws.once('message', (d) => resolve({ ws, first: JSON.parse(String(d)) }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ ws, status: res.statusCode ?? 0, body }));
    });
    ws.once('error', () => undefined);
  });
}

describe('mesh WebSocket listener: the server edge', () => {
  it('upgraded sockets count against the connection cap: the one over it gets 503 CONTROL_BUSY', async () => {
    const { endpoint, audit } = await start({ maxConnections: 2 });
    expect((await open(endpoint)).first).toMatchObject({ type: 'challenge' });
    expect((await open(endpoint)).first).toMatchObject({ type: 'challenge' });
    const third = await open(endpoint);
    expect(third.status).toBe(503);
    expect(third.body).toContain('CONTROL_BUSY');
    expect(audit.events().filter((e) => e.code === 'CONTROL_BUSY')).toHaveLength(1);
  });

  it('a client dripping its upgrade request is closed at the header deadline', async () => {
    const { server } = await start({
      timeouts: { headersMs: 600, requestMs: 600, keepAliveMs: 600, checkIntervalMs: 100 },
    });
    const socket = connect(server.port, '127.0.0.1');
    cleanup.push(() => socket.destroy());
    socket.on('error', () => undefined);
    const opened = Date.now();
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)));
    socket.write(
      `GET /mesh/v1/ws/x HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`,
    );
    const drip = setInterval(() => socket.write(`X-Drip: ${Date.now()}\r\n`), 100);
    cleanup.push(() => clearInterval(drip));
    expect(await closed).toBeLessThan(3000);
  });

  it('answers an upgrade with two Host headers 400 CONTROL_HOST_DUPLICATE', async () => {
    const { server } = await start({});
    const socket = connect(server.port, '127.0.0.1');
    cleanup.push(() => socket.destroy());
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(
      `GET /mesh/v1/ws/x HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nHost: evil.test\r\n` +
        'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('CONTROL_HOST_DUPLICATE');
  });
});
