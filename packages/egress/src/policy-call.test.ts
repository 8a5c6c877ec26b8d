import { describe, expect, it } from 'vitest';
import type { EgressPolicy } from '@trust/core';
import { authorizeHttp, authorizePeer } from './policy-call.js';
import { principal } from './test-fixtures.js';

const request = () => ({
  method: 'GET',
  url: 'https://api.test/',
  scheme: 'https:' as const,
  host: 'api.test',
  port: 443,
  path: '/',
  headers: new Headers(),
});
const context = { principal, capability: 'http' } as const;
const answering = (answer: () => unknown): EgressPolicy => ({
  name: 'p',
  authorizeHttp: answer as EgressPolicy['authorizeHttp'],
  authorizeTcp: answer as NonNullable<EgressPolicy['authorizeTcp']>,
});

// Every answer that is not a well-formed Decision fails closed with a stable code.
describe('attack: a policy answering with a malformed decision is treated as an allow', () => {
  it.each<[string, () => unknown, string, string]>([
    ['null', () => null, 'EGRESS_POLICY_DENIED', 'policy-malformed'],
    ['undefined', () => undefined, 'EGRESS_POLICY_DENIED', 'policy-malformed'],
    ["{ allow: 'yes' }", () => ({ allow: 'yes' }), 'EGRESS_POLICY_DENIED', 'policy-malformed'],
    [
      "{ allow: 'yes', code: 'X' }",
      () => ({ allow: 'yes', code: 'X', reason: 'r' }),
      'EGRESS_POLICY_DENIED',
      'policy-malformed',
    ],
    ['{ allow: 1 }', () => ({ allow: 1 }), 'EGRESS_POLICY_DENIED', 'policy-malformed'],
    ['{}', () => ({}), 'EGRESS_POLICY_DENIED', 'policy-malformed'],
    ['[true]', () => [true], 'EGRESS_POLICY_DENIED', 'policy-malformed'],
    ['true', () => true, 'EGRESS_POLICY_DENIED', 'policy-malformed'],
    ["'allow'", () => 'allow', 'EGRESS_POLICY_DENIED', 'policy-malformed'],
    [
      'a throw',
      () => {
        throw new Error('boom');
      },
      'EGRESS_POLICY_DENIED',
      'policy',
    ],
    ['a rejected promise', () => Promise.reject(new Error('boom')), 'EGRESS_POLICY_DENIED', 'policy'],
    ['a promise of null', () => Promise.resolve(null), 'EGRESS_POLICY_DENIED', 'policy-malformed'],
    ['{ allow: false } without code', () => ({ allow: false }), 'EGRESS_POLICY_DENIED', 'policy'],
    ['{ allow: false, code: 42 }', () => ({ allow: false, code: 42, reason: 'r' }), 'EGRESS_POLICY_DENIED', 'policy'],
    [
      '{ allow: false, code } kept',
      () => ({ allow: false, code: 'POLICY_HOST', reason: 'not allowed', rule: 'hosts' }),
      'POLICY_HOST',
      'hosts',
    ],
  ])('%s → deny %s (rule %s), for HTTP and TCP', async (_name, answer, code, rule) => {
    const http = (await authorizeHttp(answering(answer), request(), context)).decision;
    const tcp = await authorizePeer(
      answering(answer),
      'tcp',
      { host: 'api.test', port: 443 },
      { principal, capability: 'tcp' },
    );
    for (const d of [http, tcp]) {
      expect(d.allow).toBe(false);
      expect(d).toMatchObject({ code, rule });
      expect(typeof (d as { reason?: unknown }).reason).toBe('string');
    }
  });

  it('only allow: true allows', async () => {
    const d = (
      await authorizeHttp(
        answering(() => ({ allow: true, rule: 'ok' })),
        request(),
        context,
      )
    ).decision;
    expect(d).toEqual({ allow: true, rule: 'ok' });
  });
});
