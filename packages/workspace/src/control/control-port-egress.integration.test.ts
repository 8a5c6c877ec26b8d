// The control API must be unreachable from anything the egress guard governs (sys_fetch,
// ws_connect, sandboxed processes), in every spelling of loopback. Judged against a real,
// listening control server, and then with a real guarded fetch that must never arrive.
import { allow, createPrincipal } from '@trust/core';
import { createEgressClient, evaluateUrl } from '@trust/egress';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlServer, type ControlServer } from './control-server.js';
import { createTestAgents } from './control-fixture.test-helper.js';

let server: ControlServer;
let seen = 0;

beforeAll(async () => {
  const agents = createTestAgents();
  const list = agents.list.bind(agents);
  // Count every request that reaches the registry: a guarded fetch must never get here.
  agents.list = () => {
    seen += 1;
    return list();
  };
  server = await createControlServer({ agents });
});
afterAll(async () => server.close());

const spellings = (port: number) => [
  `http://127.0.0.1:${port}/api/v1/agents`,
  `http://localhost:${port}/api/v1/agents`,
  `http://LOCALHOST.:${port}/api/v1/agents`,
  `http://127.1:${port}/api/v1/agents`,
  `http://127.0.0.2:${port}/api/v1/agents`,
  `http://0x7f000001:${port}/api/v1/agents`,
  `http://2130706433:${port}/api/v1/agents`,
  `http://0177.0.0.1:${port}/api/v1/agents`,
  `http://[::1]:${port}/api/v1/agents`,
  `http://[::ffff:127.0.0.1]:${port}/api/v1/agents`,
  `http://[::ffff:7f00:1]:${port}/api/v1/agents`,
  `http://0.0.0.0:${port}/api/v1/agents`,
  `ws://127.0.0.1:${port}/api/v1/events`,
];

describe('the control port behind the egress guard', () => {
  it('every loopback spelling of the live control port is denied', async () => {
    for (const url of spellings(server.port)) {
      const v = await evaluateUrl(url, { protectedPorts: [server.port], schemes: ['http:', 'https:', 'ws:', 'wss:'] });
      expect({ url, allow: v.allow }).toEqual({ url, allow: false });
    }
  });

  it('the denial is the protected port, not loopback as such (another loopback port is allowed)', async () => {
    const other = server.port === 65535 ? 65534 : server.port + 1;
    const v = await evaluateUrl(`http://127.0.0.1:${other}/`, { protectedPorts: [server.port] });
    expect(v.allow).toBe(true);
    const p = await evaluateUrl(`http://127.1:${server.port}/`, { protectedPorts: [server.port] });
    expect(p).toMatchObject({ allow: false, code: expect.toBeTrustCode('EGRESS_PROTECTED_PORT') });
  });

  it('a guarded fetch to the control server is refused before it connects', async () => {
    const client = createEgressClient({
      policy: { name: 'allow-all', authorizeHttp: () => allow('test') },
      guard: { protectedPorts: [server.port] },
    });
    try {
      for (const url of [
        `http://127.0.0.1:${server.port}/api/v1/agents`,
        `http://[::ffff:7f00:1]:${server.port}/api/v1/agents`,
        `http://0x7f000001:${server.port}/api/v1/agents`,
      ]) {
        await expect(
          client.fetch(
            url,
            { headers: { authorization: `Bearer ${server.token}` } },
            { principal: createPrincipal('code', 'agent-code') },
          ),
        ).rejects.toHaveTrustCode('EGRESS_PROTECTED_PORT');
      }
    } finally {
      await client.close();
    }
    expect(seen).toBe(0);
  });
});
