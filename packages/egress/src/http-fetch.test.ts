import { describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { createStubResolver } from '@trust/testing';
import { createEgressGuard } from './guard.js';
import { egressFetch, egressRequest } from './http-fetch.js';
import { resolveLimits } from './limits.js';
import type { Engine } from './engine.js';
import { allowAll, codeOf, memorySink, principal } from './test-fixtures.js';

// Redirect logic against undici's MockAgent: nothing is dialled (the mock answers), so https
// origins can be modelled without certificates. The guard still runs its pre-flight.
function engine(allowDowngrade: boolean) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get('https://secure.test');
  pool
    .intercept({ path: '/down' })
    .reply(302, '', { headers: { location: 'http://secure.test/plain' } })
    .persist();
  pool
    .intercept({ path: '/data' })
    .reply(302, '', { headers: { location: 'data:text/plain,x' } })
    .persist();
  pool
    .intercept({ path: '/bad' })
    .reply(302, '', { headers: { location: 'http://[::1' } })
    .persist();
  agent.get('http://secure.test').intercept({ path: '/plain' }).reply(200, 'plain').persist();
  agent.get('http://secure.test').intercept({ path: '/odd' }).reply(799, 'odd').persist();
  const audit = memorySink();
  const e: Engine = {
    policy: allowAll,
    guard: createEgressGuard({ resolve: createStubResolver({ 'secure.test': ['93.184.216.34'] }) }),
    audit,
    limits: resolveLimits({}),
    dispatcher: agent as unknown as Engine['dispatcher'],
    dialled: new Map(),
    allowDowngrade,
    now: Date.now,
  };
  return { e, audit, agent };
}

describe('egressFetch redirect rules', () => {
  it('refuses https → http unless allowDowngrade', async () => {
    const { e, audit, agent } = engine(false);
    expect(await codeOf(egressFetch(e, 'https://secure.test/down', {}, { principal }))).toBeTrustCode(
      'EGRESS_DOWNGRADE',
    );
    expect(audit.events.at(-1)).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('EGRESS_DOWNGRADE'),
      target: 'http://secure.test/plain',
    });
    await agent.close();
    const open = engine(true);
    const res = await egressFetch(open.e, 'https://secure.test/down', {}, { principal });
    expect(await res.text()).toBe('plain');
    await open.agent.close();
  });

  it('refuses non-http(s) and unparsable Locations', async () => {
    const { e, agent } = engine(false);
    expect(await codeOf(egressFetch(e, 'https://secure.test/data', {}, { principal }))).toBeTrustCode(
      'EGRESS_REDIRECT_SCHEME',
    );
    expect(await codeOf(egressFetch(e, 'https://secure.test/bad', {}, { principal }))).toBeTrustCode(
      'EGRESS_REDIRECT_INVALID',
    );
    await agent.close();
  });

  it('a status a Response cannot carry is EGRESS_PROTOCOL at fetch; request still answers it', async () => {
    const { e, audit, agent } = engine(false);
    expect(await codeOf(egressFetch(e, 'http://secure.test/odd', {}, { principal }))).toBeTrustCode('EGRESS_PROTOCOL');
    expect(audit.events.at(-1)).toMatchObject({
      decision: 'allow',
      details: { status: 799, failure: 'EGRESS_PROTOCOL' },
    });
    const raw = await egressRequest(e, 'http://secure.test/odd', {}, { principal });
    expect(raw.statusCode).toBe(799);
    raw.body.resume();
    await agent.close();
  });
});
