import { describe, expect, it } from 'vitest';
import { createIdentity } from '../identity/did-key.js';
import { composeMessage } from './compose.js';
import type { AgentMessage } from './message.js';
import { createTestReceiver } from './test-fixtures.js';

const text = (content: string) => ({ content, content_type: 'text/plain' });
const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
/** A signed message whose whole JSON nests exactly `depth` levels (envelope 1 + meta 2 + the rest). */
const messageOfDepth = (to: string, depth: number, id?: string) =>
  composeMessage(createIdentity(), {
    to,
    payload: text('deep'),
    meta: { deep: nested(depth - 2) },
    ...(id === undefined ? {} : { id }),
  });

describe('ingress: nesting cap (64) before anything recursive', () => {
  it('accepts a signed message nested exactly 64 levels', async () => {
    const rx = createTestReceiver({ requireSignature: true });
    const res = await rx.ingest(JSON.stringify(messageOfDepth(rx.identity.did, 64)), { transport: 'http' });
    expect(res.accepted ? 'accepted' : res.decision.code).toBe('accepted');
  });

  it('refuses one level more with INPUT_TOO_DEEP, audits it, and does not burn the id', async () => {
    const rx = createTestReceiver();
    const id = 'deep-message-0001';
    const res = await rx.ingest(JSON.stringify(messageOfDepth(rx.identity.did, 65, id)), { transport: 'http' });
    expect(res.accepted ? 'accepted' : res.decision.code).toBeTrustCode('INPUT_TOO_DEEP');
    expect(rx.inbox).toHaveLength(0);
    expect(
      rx.audit
        .events()
        .filter((e) => e.action === 'message.receive' && e.decision === 'deny' && e.code === 'INPUT_TOO_DEEP'),
    ).toHaveLength(1);
    expect(rx.replay.has(id)).toBe(false);
    // The sender fixes the message and sends it again with the same id: accepted.
    const again = await rx.ingest(JSON.stringify(messageOfDepth(rx.identity.did, 10, id)), { transport: 'http' });
    expect(again.accepted ? 'accepted' : again.decision.code).toBe('accepted');
  });

  it('refuses a message nested 100,000 deep cleanly instead of overflowing the stack', async () => {
    const rx = createTestReceiver();
    const raw = JSON.stringify(messageOfDepth(rx.identity.did, 3)).replace(
      '"deep":[]',
      `"deep":${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    );
    const res = await rx.ingest(raw, { transport: 'http' });
    expect(res.accepted ? 'accepted' : res.decision.code).toBeTrustCode('INPUT_TOO_DEEP');
  });
});

describe('ingress: a refused message never burns its id', () => {
  it('a message refused by middleware can be delivered again once the middleware accepts', async () => {
    let refuse = true;
    const rx = createTestReceiver({}, [
      async () =>
        refuse ? { action: 'reject', code: 'MESSAGE_RATE_LIMITED', reason: 'try later' } : { action: 'accept' },
    ]);
    const raw = JSON.stringify(composeMessage(createIdentity(), { to: rx.identity.did, payload: text('x') }));
    const first = await rx.ingest(raw, { transport: 'http' });
    expect(first.accepted ? 'accepted' : first.decision.code).toBeTrustCode('MESSAGE_RATE_LIMITED');
    refuse = false;
    const second = await rx.ingest(raw, { transport: 'http' });
    expect(second.accepted ? 'accepted' : second.decision.code).toBe('accepted');
    const third = await rx.ingest(raw, { transport: 'http' });
    expect(third.accepted ? 'accepted' : third.decision.code).toBeTrustCode('MESSAGE_REPLAYED');
  });
});

describe('ingress: signatures decode only from canonical base64url', () => {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  it.each([
    ['a character outside the alphabet', (s: string) => `${s.slice(0, 10)}*${s.slice(10)}`],
    ['embedded whitespace', (s: string) => `${s.slice(0, 10)} ${s.slice(10)}`],
    ['padding', (s: string) => `${s}==`],
    ['non-zero unused bits', (s: string) => s.slice(0, -1) + abc[abc.indexOf(s.at(-1)!) ^ 1]],
  ])('refuses an envelope signature with %s (it decodes to the valid bytes leniently)', async (_n, spoil) => {
    const rx = createTestReceiver();
    const msg = composeMessage(createIdentity(), { to: rx.identity.did, payload: text('x') });
    const spoiled: AgentMessage = { ...msg, signature: spoil(msg.signature!) };
    expect(Buffer.from(spoiled.signature!, 'base64url').equals(Buffer.from(msg.signature!, 'base64url'))).toBe(true);
    const res = await rx.ingest(JSON.stringify(spoiled), { transport: 'http' });
    expect(res.accepted ? 'accepted' : res.decision.code).toBeTrustCode('MESSAGE_SIGNATURE_INVALID');
  });

  it('refuses a payload signature with a character outside the alphabet', async () => {
    const rx = createTestReceiver({ requireSignature: false, allowUnsigned: true });
    const msg = composeMessage(createIdentity(), { to: rx.identity.did, payload: text('x') });
    const { signature: _s, ...unsigned } = msg;
    const sig = msg.payload.signature!;
    const spoiled = { ...unsigned, payload: { ...msg.payload, signature: `${sig.slice(0, 5)}.${sig.slice(5)}` } };
    const res = await rx.ingest(JSON.stringify(spoiled), { transport: 'http' });
    expect(res.accepted ? 'accepted' : res.decision.code).toBeTrustCode('MESSAGE_PAYLOAD_SIGNATURE_INVALID');
  });
});

describe('ingress: the cap holds inside an encrypted payload too', () => {
  const sealedOfDepth = (depth: number) => {
    const rx = createTestReceiver();
    // content is a record: envelope 1 + payload 2 + content 3 …
    const content = { deep: nested(depth - 3) } as Record<string, unknown>;
    const msg = composeMessage(createIdentity(), {
      to: rx.identity.did,
      payload: { content, content_type: 'application/json' },
      encryptTo: rx.identity.publicKey,
    });
    return { rx, raw: JSON.stringify(msg) };
  };
  it('decrypts content that makes the message 64 deep, refuses 65 with INPUT_TOO_DEEP', async () => {
    const ok = sealedOfDepth(64);
    const r1 = await ok.rx.ingest(ok.raw, { transport: 'http' });
    expect(r1.accepted ? 'accepted' : r1.decision.code).toBe('accepted');
    const deep = sealedOfDepth(65);
    const r2 = await deep.rx.ingest(deep.raw, { transport: 'http' });
    expect(r2.accepted ? 'accepted' : r2.decision.code).toBeTrustCode('INPUT_TOO_DEEP');
  });
});
