// Two runtimes with real HTTP between them: a mesh server per side, deliveries through the
// real egress client (loopback is allowed in the egress 'default' mode).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowHosts, createMemoryAuditSink } from '@trust/core';
import { createEgressClient } from '@trust/egress';
import { afterEach, describe, expect, it } from 'vitest';
import { createIdentity } from '../identity/did-key.js';
import { composeMessage } from './compose.js';
import { deliverMessage } from './delivery.js';
import { createLocalMesh } from './local-mesh.js';
import { handleMeshRequest } from './mesh-http.js';
import { createTestReceiver } from './test-fixtures.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function meshServer(mesh = createLocalMesh()) {
  const server = createServer((req, res) => {
    if (!handleMeshRequest(mesh, req, res, 64 * 1024)) {
      res.writeHead(404).end();
    }
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { mesh, address: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const principal = { kind: 'llm', id: 'agent-a' } as const;

describe('message delivery over HTTP', () => {
  it('delivers a signed message to another runtime, and its ingress stores it', async () => {
    const remote = await meshServer();
    const rx = createTestReceiver();
    remote.mesh.register(rx.identity.did, rx.ingest);
    const audit = createMemoryAuditSink();
    const egress = createEgressClient({ policy: allowHosts(['127.0.0.1']), audit });
    const msg = composeMessage(createIdentity(), {
      to: rx.identity.did,
      payload: { content: 'over the wire', content_type: 'text/plain' },
    });
    const result = await deliverMessage(msg, remote.address, { egress, principal });
    expect(result).toMatchObject({ status: 'delivered', via: 'http', attempts: 1, statusCode: 202 });
    expect(rx.inbox[0]!.message.payload.content).toBe('over the wire');
    expect(rx.inbox[0]!.source).toBe('mesh');
    expect(audit.events().some((e) => e.action === 'egress.http' && e.decision === 'allow')).toBe(true);
    await egress.close();
  });

  it('reports a refusal from the recipient without retrying', async () => {
    const remote = await meshServer();
    const rx = createTestReceiver({ receive: false });
    remote.mesh.register(rx.identity.did, rx.ingest);
    const egress = createEgressClient({ policy: allowHosts(['127.0.0.1']) });
    const msg = composeMessage(createIdentity(), {
      to: rx.identity.did,
      payload: { content: 'x', content_type: 'text/plain' },
    });
    const result = await deliverMessage(msg, remote.address, { egress, principal, sleep: async () => {} });
    expect(result).toMatchObject({
      status: 'failed',
      attempts: 1,
      statusCode: 403,
      code: expect.toBeTrustCode('MESSAGE_REFUSED'),
    });
    await egress.close();
  });

  it('retries transient failures with bounded attempts', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(503).end();
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const egress = createEgressClient({ policy: allowHosts(['127.0.0.1']) });
    const waits: number[] = [];
    const msg = composeMessage(createIdentity(), {
      to: createIdentity().did,
      payload: { content: 'x', content_type: 'text/plain' },
    });
    const result = await deliverMessage(msg, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
      egress,
      principal,
      maxAttempts: 3,
      backoffMs: 10,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(result).toMatchObject({ status: 'failed', attempts: 3, statusCode: 503 });
    expect(hits).toBe(3);
    expect(waits).toEqual([10, 20]);
    await egress.close();
  });

  it('never delivers where the egress policy says no', async () => {
    const remote = await meshServer();
    const egress = createEgressClient({ policy: allowHosts(['api.example.com']) });
    const msg = composeMessage(createIdentity(), {
      to: createIdentity().did,
      payload: { content: 'x', content_type: 'text/plain' },
    });
    const result = await deliverMessage(msg, remote.address, { egress, principal, sleep: async () => {} });
    expect(result.status).toBe('failed');
    expect(result.attempts).toBe(1);
    expect(result.code).toMatch(/^EGRESS_/);
    await egress.close();
  });

  it('delivers locally through the same ingress', async () => {
    const mesh = createLocalMesh();
    const rx = createTestReceiver();
    mesh.register(rx.identity.did, rx.ingest);
    const msg = composeMessage(createIdentity(), {
      to: rx.identity.did,
      payload: { content: 'local', content_type: 'text/plain' },
    });
    expect(await deliverMessage(msg, undefined, { mesh, principal })).toMatchObject({
      status: 'delivered',
      via: 'local',
    });
    // The same bytes again are a replay, whichever path they take.
    expect(await deliverMessage(msg, undefined, { mesh, principal })).toMatchObject({
      status: 'failed',
      code: expect.toBeTrustCode('MESSAGE_REPLAYED'),
    });
  });

  it('refuses oversized bodies at the mesh route', async () => {
    const remote = await meshServer();
    const rx = createTestReceiver();
    remote.mesh.register(rx.identity.did, rx.ingest);
    const res = await fetch(`${remote.address}/mesh/v1/inbox/${encodeURIComponent(rx.identity.did)}`, {
      method: 'POST',
      body: 'x'.repeat(100 * 1024),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBeTrustCode('MESSAGE_TOO_LARGE');
  });
});
