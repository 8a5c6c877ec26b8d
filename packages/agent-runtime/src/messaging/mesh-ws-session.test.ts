import { createMemoryAuditSink } from '@trust/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createIdentity, type AgentIdentity } from '../identity/did-key.js';
import { composeMessage } from './compose.js';
import type { InboxMiddleware } from './ingress.js';
import type { AgentMessage } from './message.js';
import { signMeshWsAuth } from './mesh-ws-protocol.js';
import { createMeshWsSession, type MeshWsLimits } from './mesh-ws-session.js';
import { envelopeSigningBytes } from './signing-bytes.js';
import { createTestReceiver } from './test-fixtures.js';

afterEach(() => {
  vi.useRealTimers();
});

function setup(limits: Partial<MeshWsLimits> = {}, clock = { t: Date.now() }, middleware: InboxMiddleware[] = []) {
  const rx = createTestReceiver({}, middleware);
  // Frames the session sent, parsed; `nonce` is read from the challenge only.
  const sent: Array<{ readonly type: string; readonly nonce: string; readonly [key: string]: unknown }> = [];
  const closes: Array<{ code: number; reason: string }> = [];
  const audit = createMemoryAuditSink();
  const ingest = vi.fn(rx.ingest);
  const session = createMeshWsSession({
    serverDid: rx.identity.did,
    ingest,
    audit,
    limits,
    now: () => clock.t,
    peer: { send: (t) => sent.push(JSON.parse(t)), close: (code, reason) => closes.push({ code, reason }) },
  });
  session.start();
  const challenge = sent[0]!;
  const frame = (o: unknown) => session.receive(Buffer.from(JSON.stringify(o)), false);
  const login = (who: AgentIdentity) => frame(signMeshWsAuth(who, challenge.nonce, rx.identity.did, () => clock.t));
  const acks = async (n: number) => {
    await vi.waitFor(() => expect(sent.filter((f) => f.type === 'ack').length).toBeGreaterThanOrEqual(n));
    return sent.filter((f) => f.type === 'ack');
  };
  return { rx, sent, closes, audit, ingest, session, challenge, frame, login, acks, clock };
}

const hello = (from: AgentIdentity, to: string, content = 'hi') =>
  composeMessage(from, { to, payload: { content, content_type: 'text/plain' } });

describe('mesh WebSocket session (server side)', () => {
  it('sends a challenge, accepts the signed answer, and stamps ws_remote_did from the handshake', async () => {
    const s = setup();
    const me = createIdentity();
    expect(s.challenge).toMatchObject({ v: 1, type: 'challenge', server_did: s.rx.identity.did });
    s.login(me);
    expect(s.sent[1]).toEqual({ v: 1, type: 'ready', did: me.did });
    s.frame({ v: 1, type: 'message', message: hello(me, s.rx.identity.did) });
    expect((await s.acks(1))[0]).toMatchObject({ accepted: true });
    expect(s.rx.inbox[0]!.stamps.ws_remote_did).toBe(me.did);
    expect(s.rx.inbox[0]!.source).toBe('ws');
    expect(s.ingest).toHaveBeenCalledWith(expect.any(String), { transport: 'ws', wsRemoteDid: me.did });
    expect(s.audit.events().find((e) => e.action === 'mesh.ws.auth')).toMatchObject({
      decision: 'allow',
      principal: { id: me.did },
    });
  });

  it('treats any first frame as the handshake: a message before authentication closes the socket unread', () => {
    const s = setup();
    s.frame({ v: 1, type: 'message', message: hello(createIdentity(), s.rx.identity.did) });
    expect(s.closes[0]!.code).toBe(4401);
    expect(s.closes[0]!.reason).toMatch(/^MESH_WS_AUTH_MALFORMED: /);
    expect(s.ingest).not.toHaveBeenCalled();
    expect(s.audit.events()[0]).toMatchObject({
      action: 'mesh.ws.auth',
      decision: 'deny',
      code: expect.toBeTrustCode('MESH_WS_AUTH_MALFORMED'),
    });
  });

  it('refuses a handshake answer larger than a handshake needs', () => {
    const s = setup();
    s.frame({ ...signMeshWsAuth(createIdentity(), s.challenge!.nonce, s.rx.identity.did), pad: 'x'.repeat(4096) });
    expect(s.closes[0]).toMatchObject({ code: 4401 });
    expect(s.closes[0]!.reason).toMatch(/^MESH_WS_AUTH_MALFORMED: /);
  });

  it('caps a long middleware reason so the acknowledgement keeps its format', async () => {
    const s = setup({}, undefined, [
      async () => ({ action: 'reject', code: 'MESSAGE_REFUSED', reason: 'r'.repeat(5000) }),
    ]);
    const me = createIdentity();
    s.login(me);
    s.frame({ v: 1, type: 'message', message: hello(me, s.rx.identity.did) });
    const [ack] = await s.acks(1);
    expect(ack).toMatchObject({ accepted: false, code: expect.toBeTrustCode('MESSAGE_REFUSED') });
    expect(ack!.reason).toHaveLength(512);
  });

  it('gives one try: after a failed answer nothing more is read', () => {
    const s = setup();
    const me = createIdentity();
    s.frame(signMeshWsAuth(me, 'another-nonce-aaaaaaaa', s.rx.identity.did));
    s.login(me);
    expect(s.closes).toHaveLength(1);
    expect(s.closes[0]!.reason).toMatch(/^MESH_WS_AUTH_FAILED/);
    expect(s.sent.some((f) => f.type === 'ready')).toBe(false);
  });

  it('refuses a message whose from is not the authenticated DID', async () => {
    const s = setup();
    s.login(createIdentity());
    s.frame({ v: 1, type: 'message', message: hello(createIdentity(), s.rx.identity.did) });
    expect((await s.acks(1))[0]).toMatchObject({
      accepted: false,
      code: expect.toBeTrustCode('MESSAGE_WS_SENDER_MISMATCH'),
    });
    expect(s.rx.inbox).toHaveLength(0);
  });

  it('strips a wire-supplied ws_remote_did, even one covered by the signature', async () => {
    const s = setup();
    const me = createIdentity();
    s.login(me);
    const base = hello(me, s.rx.identity.did);
    const { signature: _s, ...unsigned } = base;
    const forged: AgentMessage = { ...unsigned, meta: { ws_remote_did: 'did:key:zForged', note: 'kept' } };
    const signed = { ...forged, signature: Buffer.from(me.sign(envelopeSigningBytes(forged))).toString('base64url') };
    s.frame({ v: 1, type: 'message', message: signed });
    expect((await s.acks(1))[0]).toMatchObject({ accepted: true });
    expect(s.rx.inbox[0]!.stamps.ws_remote_did).toBe(me.did);
    expect(s.rx.inbox[0]!.stripped).toContain('ws_remote_did');
    expect(s.rx.inbox[0]!.message.meta).toEqual({ note: 'kept' });
  });

  it('answers each message in order, refusals with their code', async () => {
    const s = setup();
    const me = createIdentity();
    s.login(me);
    const m = hello(me, s.rx.identity.did);
    s.frame({ v: 1, type: 'message', message: m });
    s.frame({ v: 1, type: 'message', message: m });
    s.frame({ v: 1, type: 'message', message: { nonsense: true } });
    const acks = await s.acks(3);
    expect(acks.map((a) => [a.id, a.accepted, a.code])).toEqual([
      [m.id, true, undefined],
      [m.id, false, 'MESSAGE_REPLAYED'],
      [null, false, 'MESSAGE_MALFORMED'],
    ]);
  });

  it.each([
    [
      'a binary frame',
      (s: ReturnType<typeof setup>) => s.session.receive(Buffer.from('{}'), true),
      1003,
      'MESH_WS_BINARY',
    ],
    [
      'an oversized frame',
      (s: ReturnType<typeof setup>) => s.session.receive(Buffer.alloc(2048, 0x20), false),
      1009,
      'MESSAGE_TOO_LARGE',
    ],
    [
      'a frame that is not a message frame',
      (s: ReturnType<typeof setup>) => s.frame({ v: 1, type: 'auth' }),
      4400,
      'MESH_WS_FRAME_INVALID',
    ],
  ])('closes on %s', (_n, act, code, name) => {
    const s = setup({ maxFrameBytes: 1024 });
    s.login(createIdentity());
    act(s);
    expect(s.closes[0]).toMatchObject({ code });
    expect(s.closes[0]!.reason.startsWith(`${name}: `)).toBe(true);
    expect(s.audit.events().at(-1)).toMatchObject({ decision: 'deny', code: name });
  });

  it('closes a socket that sends more frames per second than allowed', () => {
    const s = setup({ framesPerSecond: 3 });
    const me = createIdentity();
    s.login(me);
    for (let i = 0; i < 3; i++) s.frame({ v: 1, type: 'message', message: hello(me, s.rx.identity.did) });
    expect(s.closes[0]).toMatchObject({ code: 4429 });
    expect(s.closes[0]!.reason).toMatch(/^MESH_WS_RATE_LIMITED/);
  });

  it('refills the frame budget over time', () => {
    const s = setup({ framesPerSecond: 2 });
    const me = createIdentity();
    s.login(me);
    s.frame({ v: 1, type: 'message', message: hello(me, s.rx.identity.did) });
    s.clock.t += 1000;
    s.frame({ v: 1, type: 'message', message: hello(me, s.rx.identity.did) });
    s.frame({ v: 1, type: 'message', message: hello(me, s.rx.identity.did) });
    expect(s.closes).toHaveLength(0);
  });

  it('closes when the handshake is not answered in time, and when idle', () => {
    vi.useFakeTimers();
    const a = setup({ authTimeoutMs: 50, idleTimeoutMs: 1000 });
    vi.advanceTimersByTime(60);
    expect(a.closes[0]).toMatchObject({ code: 4408 });
    expect(a.closes[0]!.reason).toMatch(/^MESH_WS_AUTH_TIMEOUT/);
    expect(a.audit.events()[0]).toMatchObject({
      action: 'mesh.ws.auth',
      code: expect.toBeTrustCode('MESH_WS_AUTH_TIMEOUT'),
    });

    const b = setup({ authTimeoutMs: 50, idleTimeoutMs: 100 });
    b.login(createIdentity());
    vi.advanceTimersByTime(150);
    expect(b.closes[0]!.reason).toMatch(/^MESH_WS_IDLE/);
  });

  it('stops reading and its timers once the socket is closed', () => {
    vi.useFakeTimers();
    const s = setup({ authTimeoutMs: 50 });
    s.session.closed();
    vi.advanceTimersByTime(100);
    s.login(createIdentity());
    expect(s.closes).toHaveLength(0);
    expect(s.sent).toHaveLength(1);
  });
});

describe('mesh WebSocket session: nesting cap', () => {
  const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
  /** A signed message whose own JSON nests `depth` levels (envelope 1 + meta 2 + the rest). */
  const ofDepth = (me: AgentIdentity, to: string, depth: number) =>
    composeMessage(me, {
      to,
      payload: { content: 'x', content_type: 'text/plain' },
      meta: { deep: nested(depth - 2) },
    });

  it('delivers a message nested 64 levels, refuses 65 with INPUT_TOO_DEEP in order, audited, socket open', async () => {
    const s = setup();
    const me = createIdentity();
    s.login(me);
    const ok = ofDepth(me, s.rx.identity.did, 64);
    s.frame({ v: 1, type: 'message', message: ok });
    s.frame({ v: 1, type: 'message', message: ofDepth(me, s.rx.identity.did, 65) });
    s.frame({ v: 1, type: 'message', message: hello(me, s.rx.identity.did) });
    const acks = await s.acks(3);
    expect(acks.map((a) => [a.accepted, a.code])).toEqual([
      [true, undefined],
      [false, 'INPUT_TOO_DEEP'],
      [true, undefined],
    ]);
    expect(s.closes).toEqual([]);
    expect(s.audit.events().filter((e) => e.code === 'INPUT_TOO_DEEP' && e.decision === 'deny')).toHaveLength(1);
  });

  it('refuses a frame nested 100,000 deep without touching recursive code', async () => {
    const s = setup();
    s.login(createIdentity());
    s.session.receive(
      Buffer.from(`{"v":1,"type":"message","message":{"meta":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`),
      false,
    );
    expect((await s.acks(1))[0]).toMatchObject({ accepted: false, code: expect.toBeTrustCode('INPUT_TOO_DEEP') });
    expect(s.ingest).not.toHaveBeenCalled();
  });
});
