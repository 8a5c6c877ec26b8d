import { rejectionOf } from '@trust/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import { allowHosts, chain, injectHeaders } from '@trust/core';
import { createEgressClient } from './client.js';
import { memorySink, principal } from './test-fixtures.js';

// The client with the policy building blocks from @trust/core, against a real peer.
let peer: Peer;
beforeAll(async () => {
  peer = await startPeer({ routes: { '/echo': { kind: 'echo' } } });
});
afterAll(async () => peer.close());

describe('core policy blocks through the client', () => {
  it(
    'allowHosts + injectHeaders: the credential reaches the peer, ' +
      'other hosts are denied, the audit holds no secret',
    async () => {
      const audit = memorySink();
      const policy = chain(
        allowHosts(['api.test']),
        injectHeaders(['api.test'], { authorization: 'Bearer CORE-SECRET-1' }),
      );
      const resolve = createStubResolver({ 'api.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
      const client = createEgressClient({ policy, guard: { resolve }, audit });
      const res = await client.fetch(`http://api.test:${peer.httpPort}/echo`, undefined, { principal });
      const echo = (await res.json()) as { headers: Record<string, string> };
      expect(echo.headers.authorization).toBe('Bearer CORE-SECRET-1');
      const err = await rejectionOf(() =>
        client.fetch(`http://other.test:${peer.httpPort}/echo`, undefined, { principal }),
      );
      expect(err.code).toMatch(/^EGRESS_/);
      expect(audit.events.map((e) => e.decision)).toEqual(['allow', 'deny']);
      expect(audit.json()).not.toContain('CORE-SECRET-1');
      await client.close();
    },
  );
});
