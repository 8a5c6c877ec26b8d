import { get } from 'node:http';
import { rejectionOf } from '@trust/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import { createEgressHttpAgent } from './node-agent.js';

let peer: Peer;
beforeAll(async () => {
  peer = await startPeer({ routes: { '/echo': { kind: 'echo' } } });
});
afterAll(async () => peer.close());

function fetchText(url: string, agent: ReturnType<typeof createEgressHttpAgent>): Promise<string> {
  return new Promise((ok, fail) => {
    get(url, { agent }, (res) => {
      let t = '';
      res.on('data', (c) => (t += c));
      res.on('end', () => ok(t));
    }).on('error', fail);
  });
}

describe('createEgressHttpAgent (node:http)', () => {
  it('dials the vetted address for allowed names and refuses blocked ones, judging at connect time', async () => {
    const resolve = createStubResolver({ 'public.test': ['127.0.0.1'], 'rebind.test': { sequence: [['10.0.0.1']] } });
    const agent = createEgressHttpAgent({ guard: { resolve, cacheTtlMs: 0 }, keepAlive: true });
    const text = await fetchText(`http://public.test:${peer.httpPort}/echo`, agent);
    expect(JSON.parse(text).headers.host).toBe(`public.test:${peer.httpPort}`);
    const protectedAgent = createEgressHttpAgent({ guard: { protectedPorts: [80] } });
    for (const [url, a, code] of [
      [`http://rebind.test:${peer.httpPort}/`, agent, 'EGRESS_PRIVATE_ADDRESS'],
      ['http://169.254.169.254/', agent, 'EGRESS_METADATA'],
      ['http://[::ffff:7f00:1]/', protectedAgent, 'EGRESS_PROTECTED_PORT'],
    ] as const) {
      const err = await rejectionOf(() => fetchText(url, a));
      expect(err).toHaveTrustCode(code);
    }
    protectedAgent.destroy();
    agent.destroy();
  });
});
