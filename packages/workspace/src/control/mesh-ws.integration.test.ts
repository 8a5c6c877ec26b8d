// Two runtimes, each behind its own control server, exchange signed messages over a real mesh
// WebSocket. Sending goes through the real egress client; the attacks use a raw WebSocket client
// (the `ws` library) that can send any frame and any header.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allowHosts } from '@trust/core';
import { createEgressClient } from '@trust/egress';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createAdf } from '@trust/agent-runtime';
import type { AdfFile } from '@trust/agent-runtime';
import { defaultAgentConfig } from '@trust/agent-runtime';
import { createIdentity, type AgentIdentity } from '@trust/agent-runtime';
import { createAgentMessaging } from '@trust/agent-runtime';
import { composeMessage } from '@trust/agent-runtime';
import { deliverMessage } from '@trust/agent-runtime';
import { createLocalMesh } from '@trust/agent-runtime';
import type { AgentMessage } from '@trust/agent-runtime';
import { openMeshWsSession } from '@trust/agent-runtime';
import { signMeshWsAuth } from '@trust/agent-runtime/messaging';
import { envelopeSigningBytes } from '@trust/agent-runtime/host';
import { createControlServer, type ControlServer } from './control-server.js';
import { generateControlToken } from './control-token.js';
import type { MeshWsServerOptions } from './mesh-ws-server.js';
import { createWorkspaceAgents } from './workspace-agents.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function runtime(name: string, meshWebSocket?: MeshWsServerOptions) {
  const dir = mkdtempSync(join(tmpdir(), `trust-meshws-${name}-`));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const base = defaultAgentConfig();
  const adf: AdfFile = createAdf(join(dir, `${name}.adf`), {
    template: { ...base, messaging: { ...base.messaging, receive: true } },
  });
  cleanup.push(() => adf.close());
  const mesh = createLocalMesh();
  const identity = createIdentity();
  const server: ControlServer = await createControlServer({
    agents: createWorkspaceAgents({ dir }),
    token: generateControlToken(),
    mesh,
    ...(meshWebSocket ? { meshWebSocket } : {}),
  });
  cleanup.push(() => server.close());
  const egress = createEgressClient({
    policy: allowHosts(['127.0.0.1']),
    guard: { mode: 'default', protectedPorts: [server.port] },
  });
  cleanup.push(() => egress.close());
  const messaging = createAgentMessaging({ adf, identity, mesh, egress, sleep: async () => {} });
  mesh.register(identity.did, messaging.ingest, { audit: adf.audit });
  const wsUrl = server.url.replace('http:', 'ws:');
  return {
    adf,
    identity,
    server,
    messaging,
    egress,
    mesh,
    wsUrl,
    endpoint: `${wsUrl}/mesh/v1/ws/${encodeURIComponent(identity.did)}`,
  };
}

const principal = { kind: 'llm', id: 'agent' } as const;

/** A raw client: every frame it receives, and how it ended. */
function raw(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers, perMessageDeflate: false });
  const frames: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (d) => {
    frames.push(JSON.parse(String(d)));
    for (const w of waiters.splice(0)) w();
  });
  const ended = new Promise<{ code?: number; reason?: string; status?: number; body?: string }>((resolve) => {
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', () => {});
  });
  const frame = async (n: number) => {
    while (frames.length < n) await new Promise<void>((r) => waiters.push(r));
    return frames[n - 1];
  };
  const opened = new Promise<void>((r) => ws.on('open', () => r()));
  const sendJson = async (o: unknown) => {
    await opened;
    ws.send(JSON.stringify(o));
  };
  return { ws, frames, frame, ended, sendJson };
}

async function login(url: string, who: AgentIdentity, serverDid: string) {
  const c = raw(url);
  const challenge = await c.frame(1);
  if (typeof challenge?.nonce !== 'string') throw new Error(`expected a challenge, got ${JSON.stringify(challenge)}`);
  const auth = signMeshWsAuth(who, challenge.nonce, serverDid);
  await c.sendJson(auth);
  return { ...c, auth };
}

const hello = (from: AgentIdentity, to: string, content = 'hi') =>
  composeMessage(from, { to, payload: { content, content_type: 'text/plain' } });

describe('mesh WebSocket between two control servers', () => {
  it('delivers a signed message from msg_send over ws://, stamped with the authenticated DID', async () => {
    const a = await runtime('a');
    const b = await runtime('b');
    const { delivery } = await a.messaging.send(
      { to: b.identity.did, content: 'over a socket', address: b.wsUrl },
      principal,
    );
    expect(delivery).toMatchObject({ status: 'delivered', via: 'ws', attempts: 1 });
    const [row] = b.adf.inbox.list();
    expect(row).toMatchObject({ from: a.identity.did, content: 'over a socket' });
    expect(row!.meta).toMatchObject({
      ws_remote_did: a.identity.did,
      message_verified: true,
      payload_verified: true,
      transport: 'ws',
    });
    expect(a.adf.outbox.list()[0]).toMatchObject({ status: 'delivered' });
    expect(b.adf.audit.list({ action: 'mesh.ws.auth' })[0]).toMatchObject({
      decision: 'allow',
      principal: { kind: 'peer', id: a.identity.did },
    });
  });

  it('carries many messages on one authenticated session, each acknowledged', async () => {
    const a = await runtime('a');
    const b = await runtime('b');
    const session = await openMeshWsSession(b.wsUrl, {
      egress: a.egress,
      principal,
      signer: a.identity,
      serverDid: b.identity.did,
    });
    const acks = await Promise.all([1, 2, 3].map((i) => session.send(hello(a.identity, b.identity.did, `m${i}`))));
    session.close();
    expect(acks.map((x) => x.accepted)).toEqual([true, true, true]);
    expect(
      b.adf.inbox
        .list()
        .map((r) => r.content)
        .sort(),
    ).toEqual(['m1', 'm2', 'm3']);
  });

  it('stops delivering on open sockets once the agent leaves the mesh', async () => {
    const b = await runtime('b');
    const me = createIdentity();
    const c = await login(b.endpoint, me, b.identity.did);
    await c.frame(2);
    b.mesh.unregister(b.identity.did);
    await c.sendJson({ v: 1, type: 'message', message: hello(me, b.identity.did) });
    expect(await c.frame(3)).toMatchObject({
      type: 'ack',
      accepted: false,
      code: expect.toBeTrustCode('MESH_NO_SUCH_AGENT'),
    });
    c.ws.close();
    expect(b.adf.inbox.list()).toHaveLength(0);
  });

  it('refuses a replayed handshake: the answer captured from one connection fails on the next', async () => {
    const b = await runtime('b');
    const me = createIdentity();
    const first = await login(b.endpoint, me, b.identity.did);
    expect(await first.frame(2)).toMatchObject({ type: 'ready', did: me.did });
    const second = raw(b.endpoint);
    await second.frame(1);
    await second.sendJson(first.auth);
    expect(await second.ended).toMatchObject({ code: 4401 });
    expect((await second.ended).reason).toMatch(/^MESH_WS_AUTH_FAILED: /);
    expect(second.frames.some((f) => f.type === 'ready')).toBe(false);
    first.ws.close();
    expect(b.adf.audit.list({ action: 'mesh.ws.auth' }).map((e) => e.decision)).toEqual(['allow', 'deny']);
  });

  it('refuses a handshake signed for another server DID', async () => {
    const b = await runtime('b');
    const c = await login(b.endpoint, createIdentity(), createIdentity().did);
    expect(await c.ended).toMatchObject({ code: 4401 });
    expect(b.adf.audit.list({ action: 'mesh.ws.auth' })[0]).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('MESH_WS_AUTH_FAILED'),
    });
  });

  it('an unauthenticated socket cannot send: a message as the first frame closes it, nothing stored', async () => {
    const b = await runtime('b');
    const c = raw(b.endpoint);
    await c.frame(1);
    await c.sendJson({ v: 1, type: 'message', message: hello(createIdentity(), b.identity.did) });
    expect(await c.ended).toMatchObject({ code: 4401 });
    expect(b.adf.inbox.list()).toHaveLength(0);
  });

  it("refuses a message whose from is not the socket's authenticated DID", async () => {
    const a = await runtime('a');
    const b = await runtime('b');
    const c = await login(b.endpoint, createIdentity(), b.identity.did);
    await c.frame(2);
    const signedByA = hello(a.identity, b.identity.did);
    await c.sendJson({ v: 1, type: 'message', message: signedByA });
    expect(await c.frame(3)).toMatchObject({
      type: 'ack',
      id: signedByA.id,
      accepted: false,
      code: expect.toBeTrustCode('MESSAGE_WS_SENDER_MISMATCH'),
    });
    c.ws.close();
    expect(b.adf.inbox.list()).toHaveLength(0);
    expect(b.adf.audit.list({ action: 'message.receive' }).at(-1)).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('MESSAGE_WS_SENDER_MISMATCH'),
    });
  });

  it('strips a wire-supplied ws_remote_did and stamps the one the handshake proved', async () => {
    const b = await runtime('b');
    const me = createIdentity();
    const c = await login(b.endpoint, me, b.identity.did);
    await c.frame(2);
    const { signature: _s, ...unsigned } = hello(me, b.identity.did);
    const forged: AgentMessage = { ...unsigned, meta: { ws_remote_did: 'did:key:zForgedPeer' } };
    await c.sendJson({
      v: 1,
      type: 'message',
      message: { ...forged, signature: Buffer.from(me.sign(envelopeSigningBytes(forged))).toString('base64url') },
    });
    expect(await c.frame(3)).toMatchObject({ type: 'ack', accepted: true });
    c.ws.close();
    const meta = b.adf.inbox.list()[0]!.meta as Record<string, unknown>;
    expect(meta.ws_remote_did).toBe(me.did);
    expect(meta.stripped).toContain('ws_remote_did');
  });

  it('refuses an oversized frame with 1009 and records it', async () => {
    const b = await runtime('b', { limits: { maxFrameBytes: 4096 } });
    const me = createIdentity();
    const c = await login(b.endpoint, me, b.identity.did);
    await c.frame(2);
    await c.sendJson({ v: 1, type: 'message', message: hello(me, b.identity.did, 'x'.repeat(8192)) });
    expect(await c.ended).toMatchObject({ code: 1009 });
    expect(b.adf.inbox.list()).toHaveLength(0);
    expect(b.adf.audit.list({ action: 'mesh.ws.close' }).at(-1)).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('MESSAGE_TOO_LARGE'),
    });
  });

  it.each([
    ['a foreign Host', (port: number) => ({ host: `evil.test:${port}` }), 421, 'CONTROL_HOST_NOT_ALLOWED'],
    ['a cross-site Origin', () => ({ origin: 'http://evil.test' }), 403, 'CONTROL_CROSS_ORIGIN'],
    ['Sec-Fetch-Site cross-site', () => ({ 'sec-fetch-site': 'cross-site' }), 403, 'CONTROL_CROSS_ORIGIN'],
  ])('refuses the upgrade with %s', async (_n, headers, status, code) => {
    const b = await runtime('b');
    const c = raw(b.endpoint, headers(b.server.port));
    const end = await c.ended;
    expect(end.status).toBe(status);
    expect(JSON.parse(end.body!).error.code).toBe(code);
  });

  it('refuses a credential in the query, an unknown agent, and other upgrade paths', async () => {
    const b = await runtime('b');
    expect((await raw(`${b.endpoint}?token=x`).ended).status).toBe(400);
    expect(
      JSON.parse((await raw(`${b.wsUrl}/mesh/v1/ws/${encodeURIComponent(createIdentity().did)}`).ended).body!).error
        .code,
    ).toBeTrustCode('MESH_NO_SUCH_AGENT');
    expect((await raw(`${b.wsUrl}/api/v1/events`).ended).status).toBe(404);
  });

  it('accepts its own page origin', async () => {
    const b = await runtime('b');
    const c = raw(b.endpoint, { origin: b.server.url });
    expect(await c.frame(1)).toMatchObject({ type: 'challenge', server_did: b.identity.did });
    c.ws.close();
  });

  it('caps the number of open mesh sockets', async () => {
    const b = await runtime('b', { maxSockets: 1 });
    const first = raw(b.endpoint);
    await first.frame(1);
    const second = raw(b.endpoint);
    expect(await second.ended).toMatchObject({ status: 503 });
    first.ws.close();
    await first.ended;
  });

  it('caps the sockets one remote address holds, and frees the slot on close', async () => {
    const b = await runtime('b', { maxSocketsPerAddress: 1 });
    const first = raw(b.endpoint);
    await first.frame(1);
    expect(await raw(b.endpoint).ended).toMatchObject({ status: 503 });
    first.ws.close();
    await first.ended;
    await vi.waitFor(async () => {
      const again = raw(b.endpoint);
      const first = await Promise.race([again.frame(1), again.ended]);
      again.ws.close();
      expect(first).toMatchObject({ type: 'challenge' });
    });
  });

  it('retries a refused upgrade a bounded number of times, and never retries a refusal', async () => {
    const a = await runtime('a');
    const b = await runtime('b');
    const nobody = createIdentity().did;
    const gone = await a.messaging.send({ to: nobody, content: 'x', address: b.wsUrl }, principal);
    expect(gone.delivery).toMatchObject({
      status: 'failed',
      via: 'ws',
      attempts: 4,
      code: expect.toBeTrustCode('MESH_WS_CLOSED'),
    });
    const msg = hello(a.identity, b.identity.did);
    const options = { egress: a.egress, principal, signer: a.identity, sleep: async () => {} };
    expect(await deliverMessage(msg, b.wsUrl, options)).toMatchObject({ status: 'delivered', via: 'ws', attempts: 1 });
    expect(await deliverMessage(msg, b.wsUrl, options)).toMatchObject({
      status: 'failed',
      via: 'ws',
      attempts: 1,
      code: expect.toBeTrustCode('MESSAGE_REPLAYED'),
    });
  });

  it('cannot open a mesh socket to its own control port: the egress guard protects it', async () => {
    const a = await runtime('a');
    const { delivery } = await a.messaging.send({ to: a.identity.did, content: 'loop', address: a.wsUrl }, principal);
    expect(delivery).toMatchObject({
      status: 'failed',
      via: 'ws',
      attempts: 1,
      code: expect.toBeTrustCode('EGRESS_PROTECTED_PORT'),
    });
  });
});
