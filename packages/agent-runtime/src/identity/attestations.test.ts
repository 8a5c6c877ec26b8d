import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { openAgent, type Agent } from '../loop/agent.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { issueAttestation, verifyAttestation } from './attestations.js';
import { createIdentity } from './did-key.js';
import { createIdentityKeys } from './identity-keys.js';

const dirs: string[] = [];
const agents: Agent[] = [];
afterEach(() => {
  for (const a of agents.splice(0)) a.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const NOW = Date.parse('2026-12-08T00:00:00Z');

function agent() {
  const dir = mkdtempSync(join(tmpdir(), 'trust-att-'));
  dirs.push(dir);
  const path = join(dir, 'a.adf');
  createAdf(path, { template: defaultAgentConfig() }).close();
  const a = openAgent(path, {
    provider: createScriptedProvider([]),
    identityKeys: createIdentityKeys(),
    clock: () => new Date(NOW),
  });
  agents.push(a);
  return a;
}
const code = (a: Agent, src: string, authorized = false) =>
  a.runner.runCode(src, { authorized, principalId: authorized ? 'gateway.js' : 'sys_code' });

describe('attestations', () => {
  const issuer = createIdentity();
  const subject = createIdentity();

  it('issue → verify round trip; a changed field or another issuer does not verify', () => {
    const att = issueAttestation(issuer, { subject: subject.did, role: 'reviewer', scope: ['docs'] }, NOW);
    expect(verifyAttestation(att, NOW)).toEqual(att);
    expect(() => verifyAttestation({ ...att, role: 'admin' }, NOW)).toThrowTrustError('ATTESTATION_INVALID');
    expect(() => verifyAttestation({ ...att, issuer: subject.did }, NOW)).toThrowTrustError('ATTESTATION_INVALID');
    expect(() => verifyAttestation({ ...att, extra: 1 }, NOW)).toThrowTrustError('ATTESTATION_INVALID');
  });

  it('an expired attestation is refused', () => {
    const att = issueAttestation(issuer, { subject: subject.did, role: 'r', expiresAt: '2026-12-08T01:00:00Z' }, NOW);
    expect(() => verifyAttestation(att, NOW + 2 * 3600_000)).toThrowTrustError('ATTESTATION_EXPIRED');
  });

  it('through agent code: add verifies and stores, list re-verifies, issue needs authorized code', {
    timeout: 60_000,
  }, async () => {
    const a = agent();
    const att = issueAttestation(issuer, { subject: a.did!, role: 'member' }, NOW);
    const added = await code(a, `return await adf.attestation_add({ attestation: ${JSON.stringify(att)} })`);
    expect(added).toMatchObject({ ok: true, value: { issuer: issuer.did, subject: a.did, role: 'member' } });
    const forged = { ...att, role: 'owner' };
    const refused = await code(
      a,
      `try { await adf.attestation_add({ attestation: ${JSON.stringify(forged)} }); } catch (e) { return e.code; }`,
    );
    expect(refused).toMatchObject({ ok: true, value: 'ATTESTATION_INVALID' });
    const listed = await code(a, 'return await adf.attestation_list({})');
    expect(listed).toMatchObject({ ok: true, value: [{ attestation: att, valid: true }] });
    // set_identity cannot plant an attestation row
    const planted = await code(
      a,
      'try { await adf.set_identity({ purpose: "attestation:x", value: "{}" }); } catch (e) { return e.code; }',
    );
    expect(planted).toMatchObject({ ok: true, value: 'IDENTITY_CODE_ACCESS' });
    const plain = await code(
      a,
      `try { await adf.attestation_issue({ subject: "${subject.did}", role: "r" }); } catch (e) { return e.code; }`,
    );
    expect(plain).toMatchObject({ ok: true, value: 'REQUIRES_AUTHORIZED_CODE' });
    const issued = await code(
      a,
      `return await adf.attestation_issue({ subject: "${subject.did}", role: "peer" })`,
      true,
    );
    expect(issued).toMatchObject({ ok: true, value: { issuer: a.did, subject: subject.did, role: 'peer' } });
    expect(verifyAttestation((issued as { value: unknown }).value, NOW)).toBeTruthy();
    expect(a.adf.audit.list({ action: 'attestation.issue' })).toHaveLength(1);
    expect(a.adf.audit.list({ action: 'attestation.add' })).toHaveLength(1);
  });
});
