import { describe, expect, it } from 'vitest';
import type { Decision } from './decision.js';
import type { TrustErrorCode } from './trust-error-code.js';
import { compilePolicy } from './policy-compile.js';
import { parsePolicyFile, parsePolicyText } from './policy-file.js';
import { policyFileSchema } from './policy-file-schema.js';
import { createTestContext, createTestRequest } from './testing/requests.js';
import { thrownBy } from './testing/thrown-by.js';

function expectDecision(d: Decision, expected: 'allow' | TrustErrorCode): void {
  if (expected === 'allow') expect(d).toBeAllowed();
  else expect(d).toBeDenied(expected);
}

function problems(doc: unknown): [string, string | undefined][] {
  const e = thrownBy(() => parsePolicyFile(doc));
  expect(e.code).toBeTrustCode('POLICY_INVALID');
  for (const p of e.problems) expect(p.hint, p.message).toBeTruthy();
  return e.problems.map((p) => [p.code, p.path]);
}

describe('parsePolicyFile: valid files', () => {
  it.each([
    [{ v: 1 }],
    [{ v: 1, name: 'n', description: 'd', http: { allow: [] } }],
    [{ v: 1, http: { allow: ['api.example.com', '*.example.com'], deny: ['x.example.com'], methods: ['GET'] } }],
    [
      {
        v: 1,
        http: {
          allow: ['a.example.com'],
          inject: [{ hosts: ['a.example.com'], headers: { authorization: 'x', 'x-key': { env: 'KEY' } } }],
        },
      },
    ],
    [{ v: 1, tcp: { allow: ['db.example.com:5432', '10.0.0.0/8'] }, udp: { allow: ['[::1]:53'], deny: [] } }],
    [{ v: 1, guard: { mode: 'strict', protectedPorts: [22], allowCidrs: ['10.1.0.0/16'], denyCidrs: ['fd00::/8'] } }],
  ])('%j', (doc) => {
    expect(parsePolicyFile(doc)).toEqual(doc);
  });

  it('describes every field of the schema', () => {
    const json = JSON.stringify(policyFileSchema.toJSONSchema?.() ?? {});
    expect(json).toContain('Format version of the policy file');
    expect(json).toContain('Address guard mode');
  });
});

describe('parsePolicyFile: every problem at once, with paths', () => {
  it.each([
    ['not an object', 'nope', [['POLICY_TYPE', '']]],
    ['missing version', {}, [['POLICY_VERSION', 'v']]],
    ['wrong version', { v: 2 }, [['POLICY_VERSION', 'v']]],
    ['unknown root key', { v: 1, htpp: {} }, [['POLICY_UNKNOWN_KEY', 'htpp']]],
    ['unknown nested key', { v: 1, http: { allow: [], alow: [] } }, [['POLICY_UNKNOWN_KEY', 'http.alow']]],
    ['missing allow', { v: 1, http: {} }, [['POLICY_TYPE', 'http.allow']]],
    ['allow not a list', { v: 1, http: { allow: 'a.com' } }, [['POLICY_TYPE', 'http.allow']]],
    [
      'bad host rules',
      { v: 1, http: { allow: ['ok.example.com', '*', '*.com'] } },
      [
        ['POLICY_HOST_RULE_INVALID', 'http.allow[1]'],
        ['POLICY_HOST_RULE_INVALID', 'http.allow[2]'],
      ],
    ],
    ['bad deny rule', { v: 1, tcp: { allow: [], deny: [''] } }, [['POLICY_HOST_RULE_INVALID', 'tcp.deny[0]']]],
    ['bad method', { v: 1, http: { allow: [], methods: ['G T'] } }, [['POLICY_INVALID_VALUE', 'http.methods[0]']]],
    [
      'bad inject',
      {
        v: 1,
        http: { allow: [], inject: [{ hosts: ['*'], headers: { 'bad name': 'x', ok: { env: '1X' } }, extra: 1 }] },
      },
      [
        ['POLICY_HOST_RULE_INVALID', 'http.inject[0].hosts[0]'],
        ['POLICY_INVALID_VALUE', 'http.inject[0].headers.bad name'],
        ['POLICY_INVALID_VALUE', 'http.inject[0].headers.ok.env'],
        ['POLICY_UNKNOWN_KEY', 'http.inject[0].extra'],
      ],
    ],
    [
      'bad guard',
      { v: 1, guard: { mode: 'lax', protectedPorts: [0, 22.5], allowCidrs: ['10.0.0.0/33'], denyCidr: [] } },
      [
        ['POLICY_INVALID_VALUE', 'guard.mode'],
        ['POLICY_INVALID_VALUE', 'guard.protectedPorts[0]'],
        ['POLICY_TYPE', 'guard.protectedPorts[1]'],
        ['POLICY_CIDR_INVALID', 'guard.allowCidrs[0]'],
        ['POLICY_UNKNOWN_KEY', 'guard.denyCidr'],
      ],
    ],
  ])('%s', (_label, doc, expected) => {
    expect(problems(doc).sort()).toEqual([...expected].sort());
  });

  it('suggests the key that was meant and gives a valid example', () => {
    const e = thrownBy(() => parsePolicyFile({ v: 1, htpp: { allow: [] }, guard: { protectedPort: [22] }, name: 5 }));
    const byPath = Object.fromEntries(e.problems.map((p) => [p.path, p.hint]));
    expect(byPath.htpp).toContain('did you mean "http"');
    expect(byPath['guard.protectedPort']).toContain('did you mean "protectedPorts"');
    expect(byPath.name).toContain('"name": "github-readonly"');
  });
});

describe('parsePolicyText', () => {
  it('parses JSON', () => {
    expect(parsePolicyText('{"v":1,"http":{"allow":["a.example.com"]}}').http?.allow).toEqual(['a.example.com']);
  });
  it.each(['{', '{"v":1,', '{"v":1,"http":{"inject":[{"headers":{"a":"TOPSECRET"}}]]}'])(
    '%j is POLICY_JSON without quoting the text',
    (text) => {
      const e = thrownBy(() => parsePolicyText(text));
      expect(e.code).toBeTrustCode('POLICY_JSON');
      expect(e.message).not.toContain('TOPSECRET');
      expect(e.cause).toBeUndefined();
    },
  );
});

describe('compilePolicy', () => {
  const ctx = createTestContext();
  const file = parsePolicyFile({
    v: 1,
    name: 'demo',
    http: {
      allow: ['*.example.com'],
      deny: ['admin.example.com'],
      methods: ['GET'],
      inject: [{ hosts: ['api.example.com'], headers: { authorization: { env: 'API_TOKEN' }, 'x-static': 'lit' } }],
    },
    tcp: { allow: ['db.example.com:5432'], deny: ['10.0.0.0/8'] },
    guard: { allowCidrs: ['10.1.0.0/16'] },
  });
  const { policy, guard } = compilePolicy(file, { env: { API_TOKEN: 'Bearer t0k' } });

  it.each([
    ['https://api.example.com/', 'GET', 'allow'],
    ['https://admin.example.com/', 'GET', 'EGRESS_HOST_DENIED'],
    ['https://api.example.com/', 'POST', 'EGRESS_METHOD_NOT_ALLOWED'],
    ['https://example.com/', 'GET', 'EGRESS_HOST_NOT_ALLOWED'],
    ['https://db.example.com:5432/', 'GET', 'allow'],
    ['https://evil.test/', 'GET', 'EGRESS_HOST_NOT_ALLOWED'],
  ] as const)('http %s %s -> %s', (url, method, expected) => {
    expectDecision(policy.authorizeHttp(createTestRequest(url, { method }), ctx) as Decision, expected);
  });

  it.each([
    [{ host: 'db.example.com', port: 5432 }, 'allow'],
    [{ host: 'db.example.com', port: 5432, ip: '10.0.0.7' }, 'EGRESS_HOST_DENIED'],
    [{ host: 'db.example.com', port: 5433 }, 'EGRESS_HOST_NOT_ALLOWED'],
    [{ host: 'api.example.com', port: 443 }, 'EGRESS_HOST_NOT_ALLOWED'],
  ] as const)('tcp %j -> %s', (peer, expected) => {
    expectDecision(policy.authorizeTcp!(peer, ctx) as Decision, expected);
  });

  it('denies UDP when the file has no udp section', () => {
    expectDecision(policy.authorizeUdp!({ host: 'db.example.com', port: 5432 }, ctx) as Decision, 'EGRESS_NO_POLICY');
  });

  it('injects headers from the env and literals', () => {
    const req = createTestRequest('https://api.example.com/');
    policy.authorizeHttp(req, ctx);
    expect(req.headers.get('authorization')).toBe('Bearer t0k');
    expect(req.headers.get('x-static')).toBe('lit');
  });

  it('names the policy and returns guard settings with parsed CIDRs', () => {
    expect(policy.name).toBe('demo');
    expect(guard?.mode).toBe('default');
    expect(guard?.protectedPorts).toBeUndefined();
    expect(guard?.allowCidrs.map((c) => c.prefix)).toEqual([16]);
    expect(guard?.denyCidrs).toEqual([]);
    expect(compilePolicy(parsePolicyFile({ v: 1 })).guard).toBeUndefined();
  });

  it('an empty file denies everything', () => {
    const empty = compilePolicy(parsePolicyFile({ v: 1 })).policy;
    expectDecision(
      empty.authorizeHttp(createTestRequest('https://a.example.com/'), ctx) as Decision,
      'EGRESS_NO_POLICY',
    );
  });

  it('reports every missing secret without leaking values', () => {
    const f = parsePolicyFile({
      v: 1,
      http: {
        allow: [],
        inject: [{ hosts: ['a.example.com'], headers: { a: { env: 'A' }, b: { env: 'B' }, c: 'SECRETLIT' } }],
      },
    });
    const err = thrownBy(() => compilePolicy(f, { env: { B: '' } }));
    expect(err.code).toBeTrustCode('POLICY_SECRET_MISSING');
    expect(err.problems.map((p) => p.path)).toEqual(['http.inject[0].headers.a', 'http.inject[0].headers.b']);
    expect(err.message).not.toContain('SECRETLIT');
  });
});
