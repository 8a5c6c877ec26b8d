import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlError } from './control-error.js';
import { call, createTestAgents } from './control-fixture.test-helper.js';
import { createControlServer, type ControlServer } from './control-server.js';
import type { PolicyFileStore, PolicyFileView } from './policy-file-routes.js';

// GET/PUT /policy/file: the same guard as every route, the core validator before any write, the
// store's conflict answer passed through, and 501 without a store. The store here keeps the file in
// memory with the contract's hash check; the CLI's real file store has its own tests.
const sha = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');
const writes: string[] = [];
let current: string | undefined;
const store: PolicyFileStore = {
  read: (): PolicyFileView =>
    current === undefined
      ? { path: '/ws/egress-policy.json', exists: false, text: '', sha256: null }
      : { path: '/ws/egress-policy.json', exists: true, text: current, sha256: sha(current) },
  write(text, expected) {
    if ((current === undefined ? null : sha(current)) !== expected)
      throw controlError('CONTROL_CONFLICT', 'changed since you opened it', 'open it again');
    writes.push(text);
    current = text;
    return { sha256: sha(text) };
  },
};

let server: ControlServer;
let bare: ControlServer;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'policy-file-routes-'));
  server = await createControlServer({ agents: createTestAgents(), tokenFile: join(dir, 't1'), policyFile: store });
  bare = await createControlServer({ agents: createTestAgents(), tokenFile: join(dir, 't2') });
});
afterAll(async () => {
  await server.close();
  await bare.close();
});

const api = (method: 'GET' | 'PUT', body?: unknown, headers: Record<string, string> = {}, s = server) =>
  call(s.port, {
    method,
    path: '/api/v1/policy/file',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const POLICY = JSON.stringify({ v: 1, name: 'p', http: { allow: ['api.example.com'] } });

describe('GET/PUT /policy/file', () => {
  it('needs the token, the right Host and same origin', async () => {
    for (const method of ['GET', 'PUT'] as const) {
      const body = method === 'PUT' ? JSON.stringify({ text: POLICY, sha256: null }) : undefined;
      const anon = await call(server.port, {
        method,
        path: '/api/v1/policy/file',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body }),
      });
      expect(anon.status).toBe(401);
      const put = method === 'PUT' ? { text: POLICY, sha256: null } : undefined;
      expect((await api(method, put, { host: 'evil.test' })).status).toBe(421);
      expect((await api(method, put, { origin: 'http://evil.test' })).status).toBe(403);
    }
    expect(writes).toEqual([]);
  });

  it('answers 501 when the host keeps no policy file', async () => {
    const r = await api('GET', undefined, {}, bare);
    expect(r.status).toBe(501);
    expect(r.json().error.code).toBeTrustCode('NOT_IMPLEMENTED');
  });

  it('creates the file, then saves only over the version it was opened from', async () => {
    expect((await api('GET')).json()).toEqual({
      path: '/ws/egress-policy.json',
      exists: false,
      text: '',
      sha256: null,
    });
    const made = await api('PUT', { text: POLICY, sha256: null });
    expect(made.status).toBe(200);
    expect(made.json()).toEqual({ sha256: sha(POLICY) });
    const next = JSON.stringify({ v: 1, name: 'p2', http: { allow: ['api.example.com'] } });
    const stale = await api('PUT', { text: next, sha256: null });
    expect(stale.status).toBe(409);
    expect(stale.json().error.code).toBeTrustCode('CONTROL_CONFLICT');
    expect((await api('PUT', { text: next, sha256: sha(POLICY) })).status).toBe(200);
    expect((await api('GET')).json()).toMatchObject({ exists: true, text: next, sha256: sha(next) });
    expect(writes).toEqual([POLICY, next]);
  });

  it('refuses a text the core validator rejects, a malformed hash and an unknown key; nothing is written', async () => {
    const before = writes.length;
    const bad = await api('PUT', { text: JSON.stringify({ v: 1, htp: {} }), sha256: sha(current ?? '') });
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatchObject({ code: expect.toBeTrustCode('CONTROL_BAD_REQUEST') });
    expect(bad.json().error.message).toContain('htp');
    expect((await api('PUT', { text: POLICY, sha256: 'abc' })).status).toBe(400);
    expect((await api('PUT', { text: POLICY, sha256: null, force: true })).status).toBe(400);
    expect(writes.length).toBe(before);
  });
});
