import { describe, expect, it } from 'vitest';
import { createIdentity } from '../identity/did-key.js';
import { composeMessage } from './compose.js';
import { createMeshWsNonce, evaluateMeshWsAuth, meshWsAuthBytes, signMeshWsAuth } from './mesh-ws-protocol.js';

const client = createIdentity();
const server = createIdentity();
const other = createIdentity();
const now = Date.parse('2026-01-01T00:00:00Z');
const nonce = createMeshWsNonce();
const good = signMeshWsAuth(client, nonce, server.did, () => now);

describe('mesh WebSocket handshake', () => {
  it('issues a fresh 32-byte nonce each time', () => {
    expect(Buffer.from(nonce, 'base64url')).toHaveLength(32);
    expect(createMeshWsNonce()).not.toBe(nonce);
  });

  it.each([
    ['the answer to this nonce for this server', () => ({ frame: good, nonce, serverDid: server.did }), 'allow'],
    [
      'an answer to another connection (another nonce)',
      () => ({ frame: good, nonce: createMeshWsNonce(), serverDid: server.did }),
      'MESH_WS_AUTH_FAILED',
    ],
    [
      'an answer signed for another server DID',
      () => ({ frame: signMeshWsAuth(client, nonce, other.did, () => now), nonce, serverDid: server.did }),
      'MESH_WS_AUTH_FAILED',
    ],
    [
      'a claimed DID that did not sign',
      () => ({ frame: { ...good, did: other.did }, nonce, serverDid: server.did }),
      'MESH_WS_AUTH_FAILED',
    ],
    [
      'a changed timestamp',
      () => ({ frame: { ...good, timestamp: new Date(now + 1000).toISOString() }, nonce, serverDid: server.did }),
      'MESH_WS_AUTH_FAILED',
    ],
    [
      'a stale timestamp',
      () => ({ frame: signMeshWsAuth(client, nonce, server.did, () => now - 120_000), nonce, serverDid: server.did }),
      'MESH_WS_AUTH_STALE',
    ],
    [
      'a message frame instead of an answer',
      () => ({ frame: { v: 1, type: 'message', message: {} }, nonce, serverDid: server.did }),
      'MESH_WS_AUTH_MALFORMED',
    ],
    [
      'an extra field',
      () => ({ frame: { ...good, ws_remote_did: client.did }, nonce, serverDid: server.did }),
      'MESH_WS_AUTH_MALFORMED',
    ],
    [
      'the valid signature respelled with a character outside base64url',
      () => ({
        frame: { ...good, signature: `${good.signature.slice(0, 9)}*${good.signature.slice(9)}` },
        nonce,
        serverDid: server.did,
      }),
      'MESH_WS_AUTH_MALFORMED',
    ],
    [
      'the valid signature with padding added',
      () => ({ frame: { ...good, signature: `${good.signature}==` }, nonce, serverDid: server.did }),
      'MESH_WS_AUTH_MALFORMED',
    ],
  ])('%s', (_name, query, expected) => {
    const d = evaluateMeshWsAuth({ ...query(), now });
    expect(d.allow ? 'allow' : d.code).toBe(expected);
  });

  it('never accepts a message signature as a handshake signature (domain tags differ)', () => {
    const msg = composeMessage(client, { to: server.did, payload: { content: nonce, content_type: 'text/plain' } });
    const d = evaluateMeshWsAuth({ frame: { ...good, signature: msg.signature }, nonce, serverDid: server.did, now });
    expect(d.allow).toBe(false);
  });

  it('signs a tagged JCS transcript binding nonce, both DIDs and time', () => {
    const text = new TextDecoder().decode(
      meshWsAuthBytes({ nonce: 'n', clientDid: 'did:key:zA', serverDid: 'did:key:zB', timestamp: 't' }),
    );
    expect(text).toBe(
      'trust-mesh-ws-auth-v1\n{"client_did":"did:key:zA","nonce":"n","purpose":"mesh-ws-auth",' +
        '"server_did":"did:key:zB","timestamp":"t","v":1}',
    );
  });
});
