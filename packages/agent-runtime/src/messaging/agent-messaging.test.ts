import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdf } from '../adf/index.js';
import type { AdfFile } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/index.js';
import { createIdentity } from '../identity/did-key.js';
import { createAgentMessaging } from './agent-messaging.js';
import { createLocalMesh } from './local-mesh.js';

const dirs: string[] = [];
const files: AdfFile[] = [];
afterEach(() => {
  for (const f of files.splice(0)) f.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function agent(
  name: string,
  messaging: Record<string, unknown> = { receive: true },
  security: Record<string, unknown> = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'trust-msg-'));
  dirs.push(dir);
  const base = defaultAgentConfig();
  const adf = createAdf(join(dir, `${name}.adf`), {
    template: { ...base, messaging: { ...base.messaging, ...messaging }, security: { ...base.security, ...security } },
  });
  files.push(adf);
  return adf;
}

const principal = { kind: 'llm', id: 'a' } as const;

describe('agent messaging', () => {
  it('sends between two agents: outbox on one side, verified inbox row on the other', async () => {
    const mesh = createLocalMesh();
    const a = createAgentMessaging({ adf: agent('a'), identity: createIdentity(), mesh });
    const bAdf = agent('b');
    const b = createAgentMessaging({ adf: bAdf, identity: createIdentity(), mesh });
    mesh.register(b.did, b.ingest);
    const { delivery } = await a.send({ to: b.did, content: 'hello b', subject: 'greeting' }, principal);
    expect(delivery.status).toBe('delivered');
    const [row] = bAdf.inbox.list();
    expect(row).toMatchObject({
      from: a.did,
      to: b.did,
      content: 'hello b',
      subject: 'greeting',
      contentType: 'text/plain',
    });
    expect(row!.meta).toMatchObject({ message_verified: true, payload_verified: true, payload_encrypted: false });
    const received = bAdf.audit.list({ action: 'message.receive' });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ decision: 'allow', principal: { kind: 'peer', id: a.did } });
    expect(bAdf.audit.verify().ok).toBe(true);
  });

  it('records the delivery status in the outbox', async () => {
    const aAdf = agent('a');
    const a = createAgentMessaging({ adf: aAdf, identity: createIdentity(), mesh: createLocalMesh() });
    const { delivery } = await a.send({ to: createIdentity().did, content: 'nobody home' }, principal);
    expect(delivery).toMatchObject({ status: 'failed', code: expect.toBeTrustCode('MESSAGE_NO_ROUTE') });
    expect(aAdf.outbox.list()[0]).toMatchObject({ status: 'failed', content: 'nobody home' });
  });

  it('follows the receiving agent config: receive off by default', async () => {
    const mesh = createLocalMesh();
    const a = createAgentMessaging({ adf: agent('a'), identity: createIdentity(), mesh });
    const bAdf = agent('b', {});
    const b = createAgentMessaging({ adf: bAdf, identity: createIdentity(), mesh });
    mesh.register(b.did, b.ingest);
    const { delivery } = await a.send({ to: b.did, content: 'x' }, principal);
    expect(delivery).toMatchObject({ status: 'failed', code: expect.toBeTrustCode('MESSAGE_RECEIVE_OFF') });
    expect(bAdf.inbox.list()).toHaveLength(0);
  });

  it('remembers accepted ids across a restart of the receiver', async () => {
    const mesh = createLocalMesh();
    const sender = createIdentity();
    const a = createAgentMessaging({ adf: agent('a'), identity: sender, mesh });
    const bAdf = agent('b');
    const bIdentity = createIdentity();
    const b1 = createAgentMessaging({ adf: bAdf, identity: bIdentity, mesh });
    mesh.register(b1.did, b1.ingest);
    const { message } = await a.send({ to: b1.did, content: 'once' }, principal);
    // A new ingress for the same file (as after a restart) still refuses the replay.
    const b2 = createAgentMessaging({ adf: bAdf, identity: bIdentity, mesh });
    const res = await b2.ingest(JSON.stringify(message), { transport: 'http' });
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_REPLAYED');
  });

  it('encrypts to the recipient DID when asked', async () => {
    const mesh = createLocalMesh();
    const a = createAgentMessaging({ adf: agent('a'), identity: createIdentity(), mesh });
    const bAdf = agent('b');
    const b = createAgentMessaging({ adf: bAdf, identity: createIdentity(), mesh });
    mesh.register(b.did, b.ingest);
    const { message } = await a.send({ to: b.did, content: 'for your eyes', encrypt: true }, principal);
    expect(JSON.stringify(message)).not.toContain('for your eyes');
    expect(bAdf.inbox.list()[0]).toMatchObject({ content: 'for your eyes' });
    expect(bAdf.inbox.list()[0]!.meta).toMatchObject({ payload_encrypted: true });
  });

  it('applies the unsigned-mail rule from the config: require_signature wins over allow_unsigned', async () => {
    const bAdf = agent('b', { receive: true }, { allow_unsigned: true, require_signature: true });
    const b = createAgentMessaging({ adf: bAdf, identity: createIdentity() });
    const sender = createIdentity();
    const unsigned = {
      v: 1,
      network: 'local',
      id: 'm-000000001',
      timestamp: new Date().toISOString(),
      from: sender.did,
      to: b.did,
      payload: { content: 'x', content_type: 'text/plain' },
    };
    const res = await b.ingest(JSON.stringify(unsigned), { transport: 'http' });
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_UNSIGNED');
  });
});
