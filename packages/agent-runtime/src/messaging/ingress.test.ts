import { describe, expect, it } from 'vitest';
import { createIdentity } from '../identity/did-key.js';
import { composeMessage } from './compose.js';
import { createTestReceiver } from './test-fixtures.js';
import type { AgentMessage } from './message.js';

const text = (content: string) => ({ content, content_type: 'text/plain' });

function reSign(msg: AgentMessage, signer = createIdentity()): AgentMessage {
  // A message built by someone else's key but claiming `msg.from`.
  const forged = composeMessage(signer, {
    to: msg.to,
    payload: { content: msg.payload.content, content_type: msg.payload.content_type },
    id: msg.id,
  });
  return { ...forged, from: msg.from };
}

describe('message ingress', () => {
  it('accepts a signed message and stamps it as verified', async () => {
    const rx = createTestReceiver();
    const sender = createIdentity();
    const res = await rx.ingest(
      JSON.stringify(composeMessage(sender, { to: rx.identity.did, payload: text('hello') })),
      { transport: 'local' },
    );
    expect(res.accepted).toBe(true);
    expect(rx.inbox).toHaveLength(1);
    expect(rx.inbox[0]!.stamps).toMatchObject({
      message_verified: true,
      payload_verified: true,
      identity_verified: true,
      payload_encrypted: false,
    });
    expect(rx.inbox[0]!.message.payload.content).toBe('hello');
    expect(rx.inbox[0]!.source).toBe('local');
  });

  it.each([
    [
      'content',
      (m: AgentMessage) => ({ ...m, payload: { ...m.payload, content: 'evil' } }),
      'MESSAGE_SIGNATURE_INVALID',
    ],
    [
      'subject added',
      (m: AgentMessage) => ({ ...m, payload: { ...m.payload, subject: 'x' } }),
      'MESSAGE_SIGNATURE_INVALID',
    ],
    ['meta', (m: AgentMessage) => ({ ...m, meta: { note: 'added' } }), 'MESSAGE_SIGNATURE_INVALID'],
    [
      'timestamp',
      (m: AgentMessage) => ({ ...m, timestamp: new Date(Date.parse(m.timestamp) + 1000).toISOString() }),
      'MESSAGE_SIGNATURE_INVALID',
    ],
    [
      'payload signature swapped for garbage',
      (m: AgentMessage) => ({ ...m, payload: { ...m.payload, signature: Buffer.alloc(64, 1).toString('base64url') } }),
      'MESSAGE_SIGNATURE_INVALID',
    ],
    ['from forged with another key', (m: AgentMessage) => reSign(m), 'MESSAGE_SIGNATURE_INVALID'],
  ])('rejects a message tampered in %s', async (_name, tamper, code) => {
    const rx = createTestReceiver();
    const msg = composeMessage(createIdentity(), { to: rx.identity.did, payload: text('hello') });
    const res = await rx.ingest(JSON.stringify(tamper(msg)), { transport: 'http' });
    expect(res.accepted).toBe(false);
    if (!res.accepted) expect(res.decision.code).toBe(code);
    expect(rx.inbox).toHaveLength(0);
  });

  it('rejects a replayed message id', async () => {
    const rx = createTestReceiver();
    const raw = JSON.stringify(composeMessage(createIdentity(), { to: rx.identity.did, payload: text('once') }));
    expect((await rx.ingest(raw, { transport: 'http' })).accepted).toBe(true);
    const again = await rx.ingest(raw, { transport: 'http' });
    expect(again.accepted ? undefined : again.decision.code).toBeTrustCode('MESSAGE_REPLAYED');
  });

  it('rejects a message for another agent', async () => {
    const rx = createTestReceiver();
    const other = createIdentity();
    const res = await rx.ingest(
      JSON.stringify(composeMessage(createIdentity(), { to: other.did, payload: text('x') })),
      { transport: 'http' },
    );
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_WRONG_RECIPIENT');
  });

  it.each([
    ['too old', -10 * 60_000],
    ['from the future', 10 * 60_000],
  ])('rejects a timestamp %s', async (_n, offset) => {
    const rx = createTestReceiver();
    const msg = composeMessage(createIdentity(), {
      to: rx.identity.did,
      payload: text('x'),
      now: () => Date.now() + offset,
    });
    const res = await rx.ingest(JSON.stringify(msg), { transport: 'http' });
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_STALE');
  });

  it('strips wire-supplied trust stamps and sets its own', async () => {
    const rx = createTestReceiver({ requireSignature: false, requirePayloadSignature: false, allowUnsigned: true });
    const sender = createIdentity();
    const signed = composeMessage(sender, { to: rx.identity.did, payload: text('x') });
    const { signature: _s, ...unsigned } = signed;
    const { signature: _p, ...payload } = signed.payload;
    const spoofed = {
      ...unsigned,
      payload,
      meta: {
        payload_encrypted: true,
        message_verified: true,
        identity_verified: true,
        ws_remote_did: sender.did,
        source: 'user',
        keep: 1,
      },
    };
    const res = await rx.ingest(JSON.stringify(spoofed), { transport: 'http' });
    expect(res.accepted).toBe(true);
    const rec = rx.inbox[0]!;
    expect(rec.message.meta).toEqual({ keep: 1 });
    expect(rec.stamps).toMatchObject({ message_verified: false, payload_encrypted: false, identity_verified: false });
    expect(rec.stamps).not.toHaveProperty('ws_remote_did');
    expect(rec.source).toBe('mesh');
    expect(rec.stripped).toEqual(
      expect.arrayContaining(['payload_encrypted', 'message_verified', 'identity_verified', 'ws_remote_did', 'source']),
    );
  });

  it('composeMessage never sends stamps either', () => {
    const msg = composeMessage(createIdentity(), {
      to: createIdentity().did,
      payload: text('x'),
      meta: { message_verified: true, topic: 't' },
    });
    expect(msg.meta).toEqual({ topic: 't' });
  });

  it('enforces require_signature even when allow_unsigned is on', async () => {
    const rx = createTestReceiver({ requireSignature: true, allowUnsigned: true, requirePayloadSignature: false });
    const { signature: _s, ...unsigned } = composeMessage(createIdentity(), {
      to: rx.identity.did,
      payload: text('x'),
    });
    const res = await rx.ingest(JSON.stringify(unsigned), { transport: 'http' });
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_UNSIGNED');
  });

  it('refuses unsigned mail by default', async () => {
    const rx = createTestReceiver({ requireSignature: false, requirePayloadSignature: false });
    const { signature: _s, ...unsigned } = composeMessage(createIdentity(), {
      to: rx.identity.did,
      payload: text('x'),
    });
    const res = await rx.ingest(JSON.stringify(unsigned), { transport: 'http' });
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_UNSIGNED');
  });

  it('applies the allow list to verified senders only', async () => {
    const friend = createIdentity();
    const rx = createTestReceiver({
      allowList: [friend.did],
      requireSignature: false,
      requirePayloadSignature: false,
      allowUnsigned: true,
    });
    expect(
      (
        await rx.ingest(JSON.stringify(composeMessage(friend, { to: rx.identity.did, payload: text('hi') })), {
          transport: 'http',
        })
      ).accepted,
    ).toBe(true);
    // The same claimed sender without a signature does not match the allow list.
    const { signature: _s, ...claimed } = composeMessage(friend, { to: rx.identity.did, payload: text('spoof') });
    const res = await rx.ingest(JSON.stringify(claimed), { transport: 'http' });
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_SENDER_NOT_ALLOWED');
  });

  it('blocks a verified sender on the block list', async () => {
    const pest = createIdentity();
    const rx = createTestReceiver({ blockList: [pest.did] });
    const res = await rx.ingest(JSON.stringify(composeMessage(pest, { to: rx.identity.did, payload: text('spam') })), {
      transport: 'http',
    });
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_SENDER_BLOCKED');
    expect(
      (
        await rx.ingest(
          JSON.stringify(composeMessage(createIdentity(), { to: rx.identity.did, payload: text('ok') })),
          { transport: 'http' },
        )
      ).accepted,
    ).toBe(true);
  });

  it('round-trips an encrypted payload and stamps it', async () => {
    const rx = createTestReceiver();
    const msg = composeMessage(createIdentity(), {
      to: rx.identity.did,
      payload: { ...text('secret plan'), subject: 'hush' },
      encryptTo: rx.identity.publicKey,
    });
    expect(JSON.stringify(msg)).not.toContain('secret plan');
    expect(JSON.stringify(msg)).not.toContain('hush');
    const res = await rx.ingest(JSON.stringify(msg), { transport: 'http' });
    expect(res.accepted).toBe(true);
    expect(rx.inbox[0]!.message.payload).toMatchObject({
      content: 'secret plan',
      subject: 'hush',
      content_type: 'text/plain',
    });
    expect(rx.inbox[0]!.stamps.payload_encrypted).toBe(true);
  });

  it('rejects a payload encrypted to someone else', async () => {
    const rx = createTestReceiver();
    const msg = composeMessage(createIdentity(), {
      to: rx.identity.did,
      payload: text('x'),
      encryptTo: createIdentity().publicKey,
    });
    const res = await rx.ingest(JSON.stringify(msg), { transport: 'http' });
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_DECRYPT_FAILED');
  });

  it('fails closed when middleware throws', async () => {
    const rx = createTestReceiver({}, [
      async () => {
        throw new Error('boom');
      },
    ]);
    const res = await rx.ingest(
      JSON.stringify(composeMessage(createIdentity(), { to: rx.identity.did, payload: text('x') })),
      { transport: 'http' },
    );
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_MIDDLEWARE_FAILED');
    expect(rx.inbox).toHaveLength(0);
  });

  it('lets middleware reject or rewrite content but not the sender', async () => {
    const rejecting = createTestReceiver({}, [
      async () => ({ action: 'reject', code: 'MESSAGE_REFUSED', reason: 'looks like spam' }),
    ]);
    const r1 = await rejecting.ingest(
      JSON.stringify(composeMessage(createIdentity(), { to: rejecting.identity.did, payload: text('x') })),
      { transport: 'http' },
    );
    expect(r1.accepted ? undefined : r1.decision.code).toBeTrustCode('MESSAGE_REFUSED');

    const rewriting = createTestReceiver({}, [
      async (m) => ({ action: 'accept', message: { ...m, payload: { ...m.payload, content: 'redacted' } } }),
    ]);
    await rewriting.ingest(
      JSON.stringify(composeMessage(createIdentity(), { to: rewriting.identity.did, payload: text('x') })),
      { transport: 'http' },
    );
    expect(rewriting.inbox[0]!.message.payload.content).toBe('redacted');

    const impersonating = createTestReceiver({}, [
      async (m) => ({ action: 'accept', message: { ...m, from: createIdentity().did } }),
    ]);
    const r3 = await impersonating.ingest(
      JSON.stringify(composeMessage(createIdentity(), { to: impersonating.identity.did, payload: text('x') })),
      { transport: 'http' },
    );
    expect(r3.accepted ? undefined : r3.decision.code).toBeTrustCode('MESSAGE_MIDDLEWARE_FAILED');
  });

  it.each(['owner', 'System', ' user '])('refuses the reserved sender alias %j', async (alias) => {
    const rx = createTestReceiver();
    await rx.ingest(
      JSON.stringify(
        composeMessage(createIdentity(), { to: rx.identity.did, payload: { ...text('x'), sender_alias: alias } }),
      ),
      { transport: 'http' },
    );
    expect(rx.inbox[0]!.message.payload).not.toHaveProperty('sender_alias');
    expect(rx.inbox[0]!.stripped).toContain('sender_alias');
  });

  it.each([
    ['not JSON', '{nope', 'MESSAGE_MALFORMED'],
    ['wrong version', JSON.stringify({ v: 2 }), 'MESSAGE_MALFORMED'],
    ['oversized', 'x'.repeat(300 * 1024), 'MESSAGE_TOO_LARGE'],
  ])('rejects %s input with a code', async (_n, raw, code) => {
    const rx = createTestReceiver();
    const res = await rx.ingest(raw, { transport: 'http' });
    expect(res.accepted ? undefined : res.decision.code).toBe(code);
  });

  it('accepts nothing while receive is off (the default)', async () => {
    const rx = createTestReceiver({ receive: false });
    const res = await rx.ingest(
      JSON.stringify(composeMessage(createIdentity(), { to: rx.identity.did, payload: text('x') })),
      { transport: 'local' },
    );
    expect(res.accepted ? undefined : res.decision.code).toBeTrustCode('MESSAGE_RECEIVE_OFF');
  });

  it('stamps ws_remote_did only from an authenticated WebSocket transport', async () => {
    const rx = createTestReceiver();
    const sender = createIdentity();
    await rx.ingest(JSON.stringify(composeMessage(sender, { to: rx.identity.did, payload: text('x') })), {
      transport: 'ws',
      wsRemoteDid: sender.did,
    });
    expect(rx.inbox[0]!.stamps.ws_remote_did).toBe(sender.did);
    expect(rx.inbox[0]!.source).toBe('ws');
  });

  it.each([
    ['no authenticated DID', undefined, 'MESSAGE_WS_UNAUTHENTICATED'],
    ['another authenticated DID', 'did:key:z6MkOtherPeerOnTheSocket', 'MESSAGE_WS_SENDER_MISMATCH'],
  ])('refuses a WebSocket message with %s', async (_n, wsRemoteDid, code) => {
    const rx = createTestReceiver();
    const msg = composeMessage(createIdentity(), { to: rx.identity.did, payload: text('x') });
    const res = await rx.ingest(
      JSON.stringify(msg),
      wsRemoteDid === undefined ? { transport: 'ws' } : { transport: 'ws', wsRemoteDid },
    );
    expect(res.accepted ? 'accepted' : res.decision.code).toBe(code);
    expect(rx.inbox).toHaveLength(0);
  });
});
