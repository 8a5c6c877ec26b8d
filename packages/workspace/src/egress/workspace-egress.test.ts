import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EgressContext, type EgressHttpRequest, createMemoryAuditSink, createPrincipal } from '@trust/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuditRouter } from './audit-router.js';
import { createWorkspaceEgress } from './workspace-egress.js';

// The engine's policy source, without the network: which policy runs, what a refused file keeps,
// which guard each mode gets, and where decisions are filed.
const dirs: string[] = [];
const setup = (port = 7385) => {
  const dir = mkdtempSync(join(tmpdir(), 'ws-egress-'));
  dirs.push(dir);
  const file = join(dir, 'egress-policy.json');
  const problems: string[] = [];
  const engine = createWorkspaceEgress({
    file,
    env: {},
    audit: createMemoryAuditSink(),
    protectedPorts: () => [port],
    onProblem: (s) => problems.push(s.problem?.code ?? ''),
  });
  return { file, engine, problems };
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const req = (host: string): EgressHttpRequest => ({
  method: 'GET',
  url: `https://${host}/`,
  scheme: 'https:',
  host,
  port: 443,
  path: '/',
  headers: new Headers(),
});
const ctx: EgressContext = { principal: createPrincipal('llm', 'llm', 'a'), capability: 'http' };

describe('createWorkspaceEgress', () => {
  it('without a file runs the ADF default: any http destination, tcp denied, the control port protected', async () => {
    const { engine } = setup();
    expect(engine.status()).toMatchObject({ source: 'default', sha256: null });
    expect(engine.policy.authorizeHttp(req('example.com'), ctx)).toMatchObject({ allow: true, rule: 'adf-default' });
    expect(
      engine.policy.authorizeTcp?.({ host: 'example.com', port: 22 }, { ...ctx, capability: 'tcp' }),
    ).toMatchObject({
      allow: false,
    });
    expect(engine.guard()).toMatchObject({ mode: 'default', protectedPorts: [7385] });
    await engine.close();
  });

  it('a file replaces the default at the next decision; a refused file keeps the old policy and says why', async () => {
    const { file, engine, problems } = setup();
    writeFileSync(file, JSON.stringify({ v: 1, http: { allow: ['api.example.com'] } }));
    expect(engine.policy.authorizeHttp(req('other.example'), ctx)).toMatchObject({ allow: false });
    expect(engine.policy.authorizeHttp(req('api.example.com'), ctx)).toMatchObject({ allow: true });
    const good = engine.status().sha256;
    expect(good).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(file, '{"v":1,"http":{"allow":[');
    expect(engine.reload()).toMatchObject({
      source: 'file',
      sha256: good,
      problem: { code: expect.toBeTrustCode('WORKSPACE_POLICY_INVALID') },
    });
    expect(problems).toEqual(['WORKSPACE_POLICY_INVALID']);
    expect(engine.policy.authorizeHttp(req('api.example.com'), ctx)).toMatchObject({ allow: true });
    rmSync(file);
    expect(engine.reload()).toMatchObject({ source: 'default' });
    expect(engine.status().problem).toBeUndefined();
    await engine.close();
  });

  it.each([
    [undefined, 'default', 'default'],
    [undefined, 'allow-local', 'allow-local'],
    ['strict', 'allow-local', 'strict'],
    ['allow-local', 'default', 'allow-local'],
  ] as const)(
    'file guard %s, agent mode %s → guard mode %s, the control port always protected',
    async (own, mode, want) => {
      const { file, engine } = setup(4100);
      if (own) writeFileSync(file, JSON.stringify({ v: 1, http: { allow: ['a.example'] }, guard: { mode: own } }));
      expect(engine.guard(mode)).toMatchObject({ mode: want, protectedPorts: [4100] });
      await engine.close();
    },
  );
});

describe('createAuditRouter', () => {
  it("files an event in the log of the agent its principal names (id or DID), else in the workspace's", () => {
    const fallback = createMemoryAuditSink();
    const agent = createMemoryAuditSink();
    const router = createAuditRouter(fallback);
    const detach = router.attach('did:key:z6Mk', agent);
    const ev = (p: ReturnType<typeof createPrincipal>) =>
      router.sink.record({ principal: p, action: 'egress.http', target: 'https://x/', decision: 'allow' } as never);
    ev(createPrincipal('llm', 'llm', 'did:key:z6Mk'));
    ev(createPrincipal('plugin', 'weather'));
    detach();
    ev(createPrincipal('llm', 'llm', 'did:key:z6Mk'));
    expect(agent.events().length).toBe(1);
    expect(fallback.events().length).toBe(2);
  });
});
