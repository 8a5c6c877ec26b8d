// Two runtimes, each behind its own control server, exchange signed messages over real HTTP.
// Sending goes through the real egress client; receiving through each agent's one ingress path.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allowHosts } from '@trust/core';
import { createEgressClient } from '@trust/egress';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdf } from '@trust/agent-runtime';
import type { AdfFile } from '@trust/agent-runtime';
import { defaultAgentConfig } from '@trust/agent-runtime';
import { createIdentity } from '@trust/agent-runtime';
import { createAgentMessaging } from '@trust/agent-runtime';
import type { InboxMiddleware } from '@trust/agent-runtime/messaging';
import { composeMessage } from '@trust/agent-runtime';
import { createLocalMesh } from '@trust/agent-runtime';
import { createControlServer, type ControlServer } from './control-server.js';
import { generateControlToken } from './control-token.js';
import { createWorkspaceAgents } from './workspace-agents.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function runtime(
  name: string,
  security: Record<string, unknown> = {},
  extra: { messaging?: Record<string, unknown>; middleware?: InboxMiddleware[] } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), `trust-mesh-${name}-`));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const base = defaultAgentConfig();
  const adf: AdfFile = createAdf(join(dir, `${name}.adf`), {
    template: {
      ...base,
      messaging: { ...base.messaging, receive: true, ...extra.messaging },
      security: { ...base.security, ...security },
    },
  });
  cleanup.push(() => adf.close());
  const mesh = createLocalMesh();
  const identity = createIdentity();
  const agents = createWorkspaceAgents({ dir });
  const server: ControlServer = await createControlServer({ agents, token: generateControlToken(), mesh });
  cleanup.push(() => server.close());
  // Each runtime's egress client protects its own control port, as the agents' clients must.
  const egress = createEgressClient({
    policy: allowHosts(['127.0.0.1']),
    guard: { mode: 'default', protectedPorts: [server.port] },
  });
  cleanup.push(() => egress.close());
  const messaging = createAgentMessaging({
    adf,
    identity,
    mesh,
    egress,
    sleep: async () => {},
    ...(extra.middleware ? { middleware: extra.middleware } : {}),
  });
  mesh.register(identity.did, messaging.ingest);
  return { adf, identity, server, messaging, egress };
}

const principal = { kind: 'llm', id: 'agent' } as const;

describe('two agents, two control servers, real HTTP', () => {
  it('accepts a signed message and stores it with runtime stamps', async () => {
    const a = await runtime('a');
    const b = await runtime('b');
    const { delivery } = await a.messaging.send(
      { to: b.identity.did, content: 'hello from a', address: b.server.url },
      principal,
    );
    expect(delivery).toMatchObject({ status: 'delivered', via: 'http', statusCode: 202 });
    const [row] = b.adf.inbox.list();
    expect(row).toMatchObject({ from: a.identity.did, content: 'hello from a' });
    expect(row!.meta).toMatchObject({ message_verified: true, payload_verified: true, transport: 'mesh' });
    expect(a.adf.outbox.list()[0]).toMatchObject({ status: 'delivered' });
  });

  it('round-trips an encrypted payload', async () => {
    const a = await runtime('a');
    const b = await runtime('b');
    await a.messaging.send({ to: b.identity.did, content: 'sealed', address: b.server.url, encrypt: true }, principal);
    expect(b.adf.inbox.list()[0]).toMatchObject({ content: 'sealed' });
    expect(b.adf.inbox.list()[0]!.meta).toMatchObject({ payload_encrypted: true });
  });

  async function post(server: ControlServer, did: string, body: string) {
    const res = await fetch(`${server.url}/mesh/v1/inbox/${encodeURIComponent(did)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
  }

  it('rejects tampering, replay, a wrong recipient and spoofed stamps, over HTTP', async () => {
    const b = await runtime('b');
    const sender = createIdentity();
    const good = composeMessage(sender, { to: b.identity.did, payload: { content: 'x', content_type: 'text/plain' } });

    const tampered = { ...good, payload: { ...good.payload, content: 'changed' } };
    expect((await post(b.server, b.identity.did, JSON.stringify(tampered))).body.error?.code).toBeTrustCode(
      'MESSAGE_SIGNATURE_INVALID',
    );

    expect((await post(b.server, b.identity.did, JSON.stringify(good))).status).toBe(202);
    expect((await post(b.server, b.identity.did, JSON.stringify(good))).body.error?.code).toBeTrustCode(
      'MESSAGE_REPLAYED',
    );

    const elsewhere = composeMessage(sender, {
      to: createIdentity().did,
      payload: { content: 'x', content_type: 'text/plain' },
    });
    expect((await post(b.server, b.identity.did, JSON.stringify(elsewhere))).body.error?.code).toBeTrustCode(
      'MESSAGE_WRONG_RECIPIENT',
    );

    const stamped = composeMessage(sender, {
      to: b.identity.did,
      payload: { content: 'x', content_type: 'text/plain' },
    });
    const spoofed = { ...stamped, meta: { payload_encrypted: true } };
    // Adding a stamp after signing breaks the signature; stamps inside a signed message are stripped on compose.
    expect((await post(b.server, b.identity.did, JSON.stringify(spoofed))).body.error?.code).toBeTrustCode(
      'MESSAGE_SIGNATURE_INVALID',
    );
    expect(b.adf.inbox.list()).toHaveLength(1);
  });

  it('rejects an unsigned message under require_signature even with allow_unsigned on', async () => {
    const b = await runtime('b', { require_signature: true, allow_unsigned: true });
    const { signature: _s, ...unsigned } = composeMessage(createIdentity(), {
      to: b.identity.did,
      payload: { content: 'x', content_type: 'text/plain' },
    });
    expect((await post(b.server, b.identity.did, JSON.stringify(unsigned))).body.error?.code).toBeTrustCode(
      'MESSAGE_UNSIGNED',
    );
  });

  it('applies the block list to the verified sender, over HTTP', async () => {
    const a = await runtime('a');
    const b = await runtime('b', {}, { messaging: { block_list: [a.identity.did] } });
    const { delivery } = await a.messaging.send(
      { to: b.identity.did, content: 'let me in', address: b.server.url },
      principal,
    );
    expect(delivery).toMatchObject({ status: 'failed', statusCode: 403 });
    expect(b.adf.inbox.list()).toHaveLength(0);
    // Another verified sender still gets through.
    const c = await runtime('c');
    expect(
      (await c.messaging.send({ to: b.identity.did, content: 'hi', address: b.server.url }, principal)).delivery.status,
    ).toBe('delivered');
  });

  it('rejects the message when inbox middleware throws, over HTTP', async () => {
    const a = await runtime('a');
    const b = await runtime(
      'b',
      {},
      {
        middleware: [
          async () => {
            throw new Error('middleware bug');
          },
        ],
      },
    );
    const { delivery } = await a.messaging.send({ to: b.identity.did, content: 'x', address: b.server.url }, principal);
    expect(delivery).toMatchObject({ status: 'failed', statusCode: 403 });
    expect(b.adf.inbox.list()).toHaveLength(0);
    expect(b.adf.audit.list({ action: 'message.receive' }).at(-1)).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('MESSAGE_MIDDLEWARE_FAILED'),
    });
  });

  it('needs no owner token for mesh mail, and exposes nothing else without one', async () => {
    const b = await runtime('b');
    const res = await fetch(`${b.server.url}/api/v1/agents`);
    expect(res.status).toBe(401);
    expect((await post(b.server, 'did:key:zNobody', '{}')).status).toBe(404);
  });

  it('cannot deliver to its own control port: the egress guard protects it', async () => {
    const a = await runtime('a');
    const { delivery } = await a.messaging.send(
      { to: a.identity.did, content: 'loop', address: a.server.url },
      principal,
    );
    expect(delivery).toMatchObject({ status: 'failed', code: expect.toBeTrustCode('EGRESS_PROTECTED_PORT') });
  });
});
