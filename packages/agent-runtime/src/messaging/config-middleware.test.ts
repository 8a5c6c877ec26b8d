import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import type { agentConfigSchema } from '../config/agent-config-schema.js';
import { createIdentityKeys } from '../identity/identity-keys.js';
import { openAgent, type Agent } from '../loop/agent.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { createLocalMesh } from './local-mesh.js';

// Two real agents (real .adf files, real SQLite, the QuickJS sandbox) on one local mesh: signed
// messages with runtime stamps, and the config's inbox/outbox middleware actually running.

type Cfg = z.input<typeof agentConfigSchema>;
const dirs: string[] = [];
const agents: Agent[] = [];
afterEach(() => {
  for (const a of agents.splice(0)) a.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const keys = createIdentityKeys();

function open(name: string, mesh: ReturnType<typeof createLocalMesh>, mutate: (c: Cfg) => void = () => {}) {
  const dir = mkdtempSync(join(tmpdir(), 'trust-mw-'));
  dirs.push(dir);
  const config: Cfg = structuredClone(defaultAgentConfig({ name }));
  config.messaging = { ...config.messaging, receive: true };
  mutate(config);
  const path = join(dir, `${name}.adf`);
  createAdf(path, { template: config }).close();
  const agent = openAgent(path, { provider: createScriptedProvider([]), identityKeys: keys, mesh });
  agents.push(agent);
  return agent;
}

/** Sends through the gate as the model would; returns the tool result. */
const send = (from: Agent, to: Agent, content: string, extra: Record<string, unknown> = {}) =>
  from.gate.call('msg_send', { to: to.did, content, ...extra }, { origin: 'llm' }) as Promise<Record<string, unknown>>;

function withInbox(lambda: string, code: string, authorized: boolean) {
  return {
    mutate: (c: Cfg) => {
      c.security = { ...c.security, middleware: { inbox: [{ lambda }] } };
    },
    install(agent: Agent) {
      const file = lambda.split(':')[0]!;
      agent.adf.files.write(file, code);
      if (authorized) agent.adf.files.setAuthorized(file, true, 'owner');
    },
  };
}

const REJECT_SPAM =
  'function check(ev) { if (ev.value.payload.content.includes("spam")) return { reject: "no spam" }; ' +
  'return { value: ev.value }; }';

describe('messages between two agents of one mesh', { timeout: 60_000 }, () => {
  it('a signed message arrives with the runtime stamps, and both sides audit it', async () => {
    const mesh = createLocalMesh();
    const alice = open('alice', mesh);
    const bob = open('bob', mesh);
    expect(alice.did).toMatch(/^did:key:z6Mk/);
    expect(mesh.lookup(bob.did!)).toBe(bob.messaging!.ingest);
    const r = await send(alice, bob, 'hello bob', { subject: 'hi' });
    expect(r).toMatchObject({ status: 'delivered', via: 'local' });
    const [row] = bob.adf.inbox.list();
    expect(row).toMatchObject({ from: alice.did, to: bob.did, content: 'hello bob', subject: 'hi' });
    expect(row!.meta).toMatchObject({ message_verified: true, payload_verified: true, identity_verified: true });
    expect(alice.adf.outbox.list()[0]).toMatchObject({ to: bob.did, status: 'delivered' });
    expect(alice.adf.audit.list({ action: 'message.send' })[0]).toMatchObject({ decision: 'allow', target: bob.did });
    expect(bob.adf.audit.list({ action: 'message.receive' })[0]).toMatchObject({ decision: 'allow' });
  });

  it("the receiver's settings apply: receive off, then a blocked sender, are refused", async () => {
    const mesh = createLocalMesh();
    const alice = open('alice', mesh);
    const deaf = open('deaf', mesh, (c) => {
      c.messaging = { ...c.messaging, receive: false };
    });
    expect(await send(alice, deaf, 'hi')).toMatchObject({
      status: 'failed',
      code: expect.toBeTrustCode('MESSAGE_RECEIVE_OFF'),
    });
    const bob = open('bob', mesh);
    bob.adf.setConfig({ ...bob.adf.config(), messaging: { ...bob.adf.config().messaging, block_list: [alice.did!] } });
    expect(await send(alice, bob, 'hi')).toMatchObject({
      status: 'failed',
      code: expect.toBeTrustCode('MESSAGE_SENDER_BLOCKED'),
    });
    expect(bob.adf.inbox.list()).toHaveLength(0);
  });

  it('closing an agent takes it off the mesh', () => {
    const mesh = createLocalMesh();
    const bob = open('bob', mesh);
    const did = bob.did!;
    bob.close();
    agents.splice(agents.indexOf(bob), 1);
    expect(mesh.lookup(did)).toBeUndefined();
  });
});

describe('inbox middleware from the config runs in the code sandbox', { timeout: 60_000 }, () => {
  // Regression: the config's middleware was validated and locked but never executed, so an
  // authorized lambda returning { reject } did not stop delivery.
  it('an authorized lambda returning { reject } stops delivery (audited)', async () => {
    const mesh = createLocalMesh();
    const mw = withInbox('mw/inbox.js:check', REJECT_SPAM, true);
    const alice = open('alice', mesh);
    const bob = open('bob', mesh, mw.mutate);
    mw.install(bob);
    const r = await send(alice, bob, 'buy spam now');
    expect(r).toMatchObject({ status: 'failed', code: expect.toBeTrustCode('MIDDLEWARE_REJECTED') });
    expect(bob.adf.inbox.list()).toHaveLength(0);
    expect(bob.adf.audit.list({ action: 'middleware.inbox' })[0]).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('MIDDLEWARE_REJECTED'),
      principal: { kind: 'authorized-code', id: 'mw/inbox.js' },
    });
    expect(bob.adf.audit.list({ action: 'message.receive' })[0]).toMatchObject({ decision: 'deny' });
    // the same lambda lets other mail through
    expect(await send(alice, bob, 'hello')).toMatchObject({ status: 'delivered' });
    expect(bob.adf.inbox.list()).toHaveLength(1);
    expect(bob.adf.audit.list({ action: 'middleware.inbox' })[1]).toMatchObject({ decision: 'allow' });
    expect(bob.adf.audit.verify().ok).toBe(true);
  });

  it('a lambda in an unauthorized file is skipped, and the skip is audited', async () => {
    const mesh = createLocalMesh();
    const mw = withInbox('mw/inbox.js:check', REJECT_SPAM, false);
    const alice = open('alice', mesh);
    const bob = open('bob', mesh, mw.mutate);
    mw.install(bob);
    expect(await send(alice, bob, 'spam')).toMatchObject({ status: 'delivered' });
    expect(bob.adf.inbox.list()[0]).toMatchObject({ content: 'spam' });
    expect(bob.adf.audit.list({ action: 'middleware.inbox' })[0]).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('MIDDLEWARE_UNAUTHORIZED'),
      rule: 'require_middleware_authorization',
      principal: { kind: 'code', id: 'mw/inbox.js' },
    });
  });

  it('with require_middleware_authorization off, an unauthorized lambda runs', async () => {
    const mesh = createLocalMesh();
    const mw = withInbox('mw/inbox.js:check', REJECT_SPAM, false);
    const alice = open('alice', mesh);
    const bob = open('bob', mesh, (c) => {
      mw.mutate(c);
      c.security = { ...c.security, require_middleware_authorization: false };
    });
    mw.install(bob);
    expect(await send(alice, bob, 'spam')).toMatchObject({
      status: 'failed',
      code: expect.toBeTrustCode('MIDDLEWARE_REJECTED'),
    });
  });

  it('an authorized lambda may rewrite the payload; the stamps stay the runtime’s', async () => {
    const mesh = createLocalMesh();
    const mw = withInbox(
      'mw/inbox.js:tag',
      'function tag(ev) { const m = ev.value; return { value: { ...m, meta: { ...m.meta, message_verified: false }, ' +
        'payload: { ...m.payload, content: "[checked " + ev.context.stamps.message_verified + "] " + ' +
        'm.payload.content } } }; }',
      true,
    );
    const alice = open('alice', mesh);
    const bob = open('bob', mesh, mw.mutate);
    mw.install(bob);
    expect(await send(alice, bob, 'hello')).toMatchObject({ status: 'delivered' });
    const [row] = bob.adf.inbox.list();
    expect(row).toMatchObject({ content: '[checked true] hello' });
    // a stamp written by middleware is stripped; the runtime's stamp wins
    expect(row!.meta).toMatchObject({ message_verified: true });
    expect(bob.adf.audit.list({ action: 'middleware.inbox' })[0]).toMatchObject({
      decision: 'allow',
      details: { outcome: 'rewrite' },
    });
  });

  it('a lambda that throws rejects the message (fail closed)', async () => {
    const mesh = createLocalMesh();
    const mw = withInbox('mw/inbox.js:check', 'function check(ev) { throw new Error("boom"); }', true);
    const alice = open('alice', mesh);
    const bob = open('bob', mesh, mw.mutate);
    mw.install(bob);
    expect(await send(alice, bob, 'hello')).toMatchObject({
      status: 'failed',
      code: expect.toBeTrustCode('MIDDLEWARE_FAILED'),
    });
    expect(bob.adf.inbox.list()).toHaveLength(0);
  });
});

describe('outbox middleware from the config', { timeout: 60_000 }, () => {
  const outbox = (code: string, authorized = true) => ({
    mutate: (c: Cfg) => {
      c.security = { ...c.security, middleware: { outbox: [{ lambda: 'mw/out.js:check' }] } };
    },
    install(agent: Agent) {
      agent.adf.files.write('mw/out.js', code);
      if (authorized) agent.adf.files.setAuthorized('mw/out.js', true, 'owner');
    },
  });

  it('may reject a message before it is signed or stored', async () => {
    const mesh = createLocalMesh();
    const mw = outbox('function check(ev) { return ev.value.content.includes("secret") ? { reject: "leak" } : ev; }');
    const alice = open('alice', mesh, mw.mutate);
    mw.install(alice);
    const bob = open('bob', mesh);
    expect(await send(alice, bob, 'the secret is 42')).toMatchObject({
      status: 'failed',
      code: expect.toBeTrustCode('MIDDLEWARE_REJECTED'),
    });
    expect(alice.adf.outbox.list()).toHaveLength(0);
    expect(bob.adf.inbox.list()).toHaveLength(0);
    expect(alice.adf.audit.list({ action: 'middleware.outbox' })[0]).toMatchObject({ decision: 'deny' });
    expect(alice.adf.audit.list({ action: 'message.send' })[0]).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('MIDDLEWARE_REJECTED'),
    });
  });

  it('a rewrite is what gets signed, and the recipient verifies it', async () => {
    const mesh = createLocalMesh();
    const mw = outbox(
      'function check(ev) { return { value: { ...ev.value, content: ev.value.content + " -- sent by alice" } }; }',
    );
    const alice = open('alice', mesh, mw.mutate);
    mw.install(alice);
    const bob = open('bob', mesh);
    expect(await send(alice, bob, 'hi')).toMatchObject({ status: 'delivered' });
    const [row] = bob.adf.inbox.list();
    expect(row).toMatchObject({ content: 'hi -- sent by alice' });
    expect(row!.meta).toMatchObject({ message_verified: true, payload_verified: true });
    expect(alice.adf.outbox.list()[0]).toMatchObject({ content: 'hi -- sent by alice' });
  });

  it('may not change the recipient', async () => {
    const mesh = createLocalMesh();
    const mw = outbox('function check(ev) { return { value: { ...ev.value, to: "did:key:z6MkOther" } }; }');
    const alice = open('alice', mesh, mw.mutate);
    mw.install(alice);
    const bob = open('bob', mesh);
    expect(await send(alice, bob, 'hi')).toMatchObject({
      status: 'failed',
      code: expect.toBeTrustCode('MIDDLEWARE_FAILED'),
    });
    expect(bob.adf.inbox.list()).toHaveLength(0);
  });

  it('an unauthorized outbox lambda is skipped (audited) and the message goes out unchanged', async () => {
    const mesh = createLocalMesh();
    const mw = outbox('function check(ev) { return { reject: "never" }; }', false);
    const alice = open('alice', mesh, mw.mutate);
    mw.install(alice);
    const bob = open('bob', mesh);
    expect(await send(alice, bob, 'hi')).toMatchObject({ status: 'delivered' });
    expect(alice.adf.audit.list({ action: 'middleware.outbox' })[0]).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('MIDDLEWARE_UNAUTHORIZED'),
    });
  });
});
