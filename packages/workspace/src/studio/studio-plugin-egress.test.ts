import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pluginEgressFor } from './studio-plugin-egress.js';

const dir = mkdtempSync(join(tmpdir(), 'studio-plugin-egress-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (policy: unknown): string => {
  const path = join(dir, `policy-${++n}.json`);
  writeFileSync(path, typeof policy === 'string' ? policy : JSON.stringify(policy));
  return path;
};

describe('pluginEgressFor: the workspace policy a network grant needs', () => {
  it('reads nothing when no grant reaches the network', async () => {
    expect(await pluginEgressFor(['env:A', 'stdout'], join(dir, 'absent.json'), {})).toBeUndefined();
  });

  it('refuses a network grant without a policy file, naming where to put it', async () => {
    const absent = join(dir, 'absent.json');
    const err = pluginEgressFor(['http'], absent, {});
    await expect(err).rejects.toThrowTrustError('STUDIO_PLUGIN_EGRESS_POLICY_MISSING');
    await expect(pluginEgressFor(['udp'], absent, {})).rejects.toMatchObject({
      hint: expect.stringContaining(absent),
    });
    await expect(pluginEgressFor(['tcp'], undefined, {})).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_EGRESS_POLICY_MISSING',
    );
  });

  it.each([
    ['an unknown section', { v: 1, htp: { allow: ['a.example'] } }],
    ['a bad host rule', { v: 1, http: { allow: ['http://a.example/'] } }],
    ['not JSON', '{ v: 1'],
    [
      'a missing env secret',
      {
        v: 1,
        http: { allow: ['a.example'], inject: [{ hosts: ['a.example'], headers: { authorization: { env: 'NOPE' } } }] },
      },
    ],
  ])('refuses a policy the core validator refuses: %s', async (_name, policy) => {
    await expect(pluginEgressFor(['http'], file(policy), {})).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_EGRESS_POLICY_INVALID',
    );
  });

  it('refuses an oversized policy file', async () => {
    const big = file(`{"v":1,"name":"${'x'.repeat(300 * 1024)}"}`);
    await expect(pluginEgressFor(['http'], big, {})).rejects.toThrowTrustError('STUDIO_PLUGIN_EGRESS_POLICY_INVALID');
  });

  it.each([
    [['network'], { v: 1, http: { allow: ['a.example'] }, tcp: { allow: ['db.example:5432'] } }],
    [['sockets'], { v: 1, udp: { allow: ['dns.example:53'] } }],
    [['http'], { v: 1, tcp: { allow: ['db.example:5432'] } }],
    [['http', 'udp'], { v: 1, http: { allow: ['a.example'] } }],
  ])('refuses %j as wider than the policy, never narrowing it', async (grants, policy) => {
    await expect(pluginEgressFor(grants, file(policy), {})).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_GRANT_WIDER_THAN_POLICY',
    );
  });

  it('compiles a policy that covers the grants; the view names its rules and hides literal header values', async () => {
    const path = file({
      v: 1,
      name: 'ws',
      http: {
        allow: ['api.example.com'],
        inject: [
          { hosts: ['api.example.com'], headers: { 'x-key': 'literal-secret', authorization: { env: 'TOKEN' } } },
        ],
      },
      tcp: { allow: ['db.example:5432'] },
      guard: { mode: 'allow-local', allowCidrs: ['10.1.0.0/16'] },
    });
    const e = await pluginEgressFor(['http', 'tcp'], path, { TOKEN: 'Bearer t' });
    expect(e?.guard).toEqual({ mode: 'allow-local', allowCidrs: ['10.1.0.0/16'], denyCidrs: [] });
    expect(e?.view.rules.map((r) => r.path)).toEqual(['http.allow', 'http.inject.0', 'tcp.allow', 'guard']);
    expect(JSON.stringify(e?.view)).not.toContain('literal-secret');
    expect(JSON.stringify(e?.view)).not.toContain('Bearer t');
    expect(e?.view.rules[1]?.value).toContain('"env":"TOKEN"');
    expect(e?.view).toMatchObject({ file: path, name: 'ws' });
  });
});
