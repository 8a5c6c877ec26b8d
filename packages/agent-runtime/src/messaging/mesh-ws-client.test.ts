import { describe, expect, it } from 'vitest';
import { MESH_WS_CLOSE } from './mesh-ws-protocol.js';
import { closedError } from './mesh-ws-client.js';

// The close reason is written by the peer. A code it names becomes the local error's code only when
// it is a known code, so a peer cannot plant an arbitrary string where callers and audit match codes.
describe('closedError (regression: a peer-named close code is taken only when it is a known code)', () => {
  it.each([
    ['a known code the peer names', 4001, 'MESH_WS_AUTH_FAILED: bad signature', 'MESH_WS_AUTH_FAILED'],
    ['an invented code the peer names', 4001, 'OWNED_BY_PEER: gotcha', 'MESH_WS_CLOSED'],
    ['no code', 1006, '', 'MESH_WS_CLOSED'],
    ['a message too big, unnamed', MESH_WS_CLOSE.TOO_BIG, 'too big', 'MESSAGE_TOO_LARGE'],
  ] as const)('%s', (_label, code, reason, expected) => {
    const e = closedError(code, reason);
    expect(e.code).toBeTrustCode(expected);
    expect(e.message).toContain(reason);
  });
});
