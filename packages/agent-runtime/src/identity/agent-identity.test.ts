import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdf, openAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { openAgent, type Agent } from '../loop/agent.js';
import type { AgentEvent } from '../loop/agent-loop.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { openAgentIdentity, provisionAgentIdentity } from './agent-identity.js';
import { createIdentityKeys, loadOrCreateIdentityKeys } from './identity-keys.js';
import { loadIdentity } from './identity-store.js';

const dirs: string[] = [];
const agents: Agent[] = [];
afterEach(() => {
  for (const a of agents.splice(0)) a.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'trust-id-'));
  dirs.push(d);
  return d;
};
const newFile = (config = defaultAgentConfig()) => {
  const path = join(tmp(), 'a.adf');
  createAdf(path, { template: config }).close();
  return path;
};

describe('identity key file', () => {
  it('is created owner-only and read back as the same keys', () => {
    const file = join(tmp(), 'keys', 'identity-keys.json');
    const a = loadOrCreateIdentityKeys(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const b = loadOrCreateIdentityKeys(file);
    expect(Buffer.from(b.sealTo.runtime)).toEqual(Buffer.from(a.sealTo.runtime));
    expect(Buffer.from(b.sealTo.owner)).toEqual(Buffer.from(a.sealTo.owner));
    expect(readFileSync(file, 'utf8')).toContain('"kind":"trust-identity-keys"');
  });

  it.each([
    ['readable by others', (f: string) => chmodSync(f, 0o644)],
    ['not JSON', (f: string) => writeFileSync(f, 'nope')],
    ['another kind', (f: string) => writeFileSync(f, JSON.stringify({ v: 1, kind: 'x', owner: 'a', runtime: 'b' }))],
    [
      'a bad key',
      (f: string) => writeFileSync(f, JSON.stringify({ v: 1, kind: 'trust-identity-keys', owner: 'AAAA' })),
    ],
  ])('a key file that is %s is refused (IDENTITY_KEYS_INVALID)', (_why, spoil) => {
    const file = join(tmp(), 'identity-keys.json');
    loadOrCreateIdentityKeys(file);
    spoil(file);
    expect(() => loadOrCreateIdentityKeys(file)).toThrowTrustError('IDENTITY_KEYS_INVALID');
  });
});

describe('provisioning', () => {
  it('gives a new file a did:key sealed to owner and runtime, audited', () => {
    const keys = createIdentityKeys();
    const adf = createAdf(join(tmp(), 'n.adf'), { template: defaultAgentConfig() });
    const id = provisionAgentIdentity(adf, keys);
    expect(adf.meta.get('adf_did')).toBe(id.did);
    expect(loadIdentity(adf, keys.runtime.privateKey).did).toBe(id.did);
    expect(loadIdentity(adf, keys.owner.privateKey).did).toBe(id.did);
    expect(adf.audit.list({ action: 'identity.provision' })[0]).toMatchObject({ decision: 'allow', target: id.did });
    adf.close();
  });

  it('openAgentIdentity: provisions only when asked; another runtime finds it sealed', () => {
    const keys = createIdentityKeys();
    const path = newFile();
    const adf = openAdf(path);
    expect(openAgentIdentity(adf, keys, { provision: false })).toEqual({ kind: 'missing' });
    const made = openAgentIdentity(adf, keys, { provision: true });
    expect(made.kind).toBe('provisioned');
    expect(openAgentIdentity(adf, keys, { provision: true }).kind).toBe('loaded');
    expect(openAgentIdentity(adf, createIdentityKeys(), { provision: true })).toMatchObject({
      kind: 'sealed',
      code: expect.toBeTrustCode('IDENTITY_SEALED'),
    });
    adf.close();
  });

  it('openAgent with keys provisions an owned file on first open and keeps the DID after', () => {
    const keys = createIdentityKeys();
    const path = newFile();
    const first = openAgent(path, { provider: createScriptedProvider([]), identityKeys: keys });
    expect(first.identity.kind).toBe('provisioned');
    const did = first.did;
    expect(did).toMatch(/^did:key:z6Mk/);
    first.close();
    const again = openAgent(path, { provider: createScriptedProvider([]), identityKeys: keys });
    agents.push(again);
    expect(again.identity.kind).toBe('loaded');
    expect(again.did).toBe(did);
  });

  it('openAgent never provisions a foreign file', () => {
    const path = newFile();
    const a = openAgent(path, {
      provider: createScriptedProvider([]),
      identityKeys: createIdentityKeys(),
      trust: 'foreign',
    });
    agents.push(a);
    expect(a.identity.kind).toBe('missing');
    expect(a.did).toBeUndefined();
    expect(a.adf.meta.get('adf_did')).toBeUndefined();
  });
});

describe('identity code methods through a real agent', { timeout: 60_000 }, () => {
  function agent(events: AgentEvent[] = []) {
    const a = openAgent(newFile(), {
      provider: createScriptedProvider([]),
      identityKeys: createIdentityKeys(),
      onEvent: (e) => events.push(e),
    });
    agents.push(a);
    return a;
  }
  const run = (a: Agent, code: string) => a.runner.runCode(code, { authorized: false, principalId: 'sys_code' });

  it('identity_status shows the DID and how the key is sealed, never a value', async () => {
    const a = agent();
    await run(a, 'await adf.set_identity({ purpose: "app:token", value: "s3cret-value" })');
    const r = await run(a, 'return await adf.identity_status({})');
    expect(r).toMatchObject({
      ok: true,
      value: {
        did: a.did,
        provisioned: true,
        signingKey: { storage: 'envelope', slots: ['owner', 'runtime'], password: false },
        secrets: { total: 1, codeAccess: 1, sealed: 1 },
        attestations: 0,
      },
    });
    expect(JSON.stringify(r)).not.toContain('s3cret');
    expect(JSON.stringify(r)).not.toContain('app:token');
  });

  it('get_identity / set_identity are registered: code reads back its own secret, never key material', async () => {
    const a = agent();
    const r = await run(
      a,
      'await adf.set_identity({ purpose: "app:token", value: "v1" }); ' +
        'const back = await adf.get_identity({ purpose: "app:token" }); ' +
        'let km; try { await adf.get_identity({ purpose: "crypto:signing:private_key" }); } ' +
        'catch (e) { km = e.code; } ' +
        'return { back, km };',
    );
    expect(r).toMatchObject({ ok: true, value: { back: 'v1', km: 'IDENTITY_KEY_MATERIAL' } });
  });

  it('a code_execution flag still turns identity_status off', async () => {
    const config = defaultAgentConfig();
    const a = openAgent(newFile({ ...config, code_execution: { ...config.code_execution, identity_status: false } }), {
      provider: createScriptedProvider([]),
    });
    agents.push(a);
    const r = await run(a, 'try { await adf.identity_status({}); } catch (e) { return e.code; }');
    expect(r).toMatchObject({ ok: true, value: 'CODE_METHOD_DISABLED' });
  });

  it('emit_event hands a custom.* event to the host, logged and audited', async () => {
    const events: AgentEvent[] = [];
    const a = agent(events);
    const r = await run(a, 'return await adf.emit_event({ type: "custom.progress", data: { done: 3 } })');
    expect(r).toMatchObject({ ok: true, value: { type: 'custom.progress' } });
    expect(events).toContainEqual({ kind: 'custom', type: 'custom.progress', data: { done: 3 }, from: 'sys_code' });
    expect(a.adf.audit.list({ action: 'event.emit' })[0]).toMatchObject({
      decision: 'allow',
      target: 'custom.progress',
    });
    expect(a.adf.logs.list().some((l) => l.event === 'custom.progress')).toBe(true);
  });

  it.each([
    ['turn', 'EVENT_TYPE_INVALID'],
    ['custom.', 'EVENT_TYPE_INVALID'],
    ['custom.UPPER', 'EVENT_TYPE_INVALID'],
  ])('emit_event refuses the type %s', async (type, code) => {
    const events: AgentEvent[] = [];
    const a = agent(events);
    const r = await run(
      a,
      `try { await adf.emit_event({ type: ${JSON.stringify(type)} }); } catch (e) { return e.code; }`,
    );
    expect(r).toMatchObject({ ok: true, value: code });
    expect(events.filter((e) => e.kind === 'custom')).toHaveLength(0);
  });

  it('emit_event refuses data over the size cap', async () => {
    const a = agent();
    const r = await run(
      a,
      'try { await adf.emit_event({ type: "custom.big", data: "x".repeat(20000) }); } catch (e) { return e.code; }',
    );
    expect(r).toMatchObject({ ok: true, value: 'EVENT_TOO_LARGE' });
  });

  it('the model cannot call them', async () => {
    const a = agent();
    for (const name of ['identity_status', 'emit_event', 'get_identity'])
      await expect(a.gate.call(name, {}, { origin: 'llm' })).rejects.toHaveTrustCode('TOOL_NOT_DECLARED');
  });
});
