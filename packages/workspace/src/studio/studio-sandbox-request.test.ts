import { describe, expect, it } from 'vitest';
import { checkStartRequest, problemPath } from './studio-sandbox-request.js';

const POLICY = { v: 1, capabilities: ['stdout', 'stderr'] };

describe('checkStartRequest (the sandbox and egress validators, every problem in place)', () => {
  it('accepts a plain run and lowers its limits to the host caps', async () => {
    const r = await checkStartRequest(
      { argv: ['echo', 'hi'], policy: { ...POLICY, limits: { timeMs: 86_400_000, outputBytes: 10 } } },
      {},
    );
    expect(r).toMatchObject({
      ok: true,
      start: { argv: ['echo', 'hi'], limits: { timeMs: 600_000, outputBytes: 10 } },
    });
  });

  it.each([
    [
      'a NUL byte in an argv word',
      { argv: ['echo', 'a\0--ro-bind'], policy: POLICY },
      'argv.1',
      'SANDBOX_ARGV_INVALID',
    ],
    ['an empty program', { argv: [''], policy: POLICY }, 'argv.0', 'SANDBOX_ARGV_INVALID'],
    ['a control byte in cwd', { argv: ['ls'], cwd: '/tmp/\n--bind', policy: POLICY }, 'cwd', 'SANDBOX_CWD_INVALID'],
    ['a NUL byte in cwd', { argv: ['ls'], cwd: '/tmp\0/x', policy: POLICY }, 'cwd', 'SANDBOX_CWD_INVALID'],
    [
      'an unknown policy key',
      { argv: ['ls'], policy: { ...POLICY, capabilites: [] } },
      'policy.capabilites',
      'SANDBOX_POLICY_UNKNOWN_KEY',
    ],
    ['a wrong version', { argv: ['ls'], policy: { v: 2 } }, 'policy.v', 'SANDBOX_POLICY_FIELD'],
    [
      'an unknown capability',
      { argv: ['ls'], policy: { v: 1, capabilities: ['netwrok'] } },
      'policy.capabilities.0',
      'CAPABILITY_UNKNOWN',
    ],
    [
      'http without an egress policy',
      { argv: ['ls'], policy: { v: 1, capabilities: ['http'] } },
      'egress',
      'EGRESS_NO_POLICY',
    ],
    [
      'a bad egress host rule',
      { argv: ['ls'], policy: POLICY, egress: { v: 1, http: { allow: ['*'] } } },
      'egress.http.allow.0',
      undefined,
    ],
    [
      'a typo in the egress policy',
      { argv: ['ls'], policy: POLICY, egress: { v: 1, htp: {} } },
      'egress.htp',
      'POLICY_UNKNOWN_KEY',
    ],
  ])('refuses %s at its place', async (_name, input, path, code) => {
    const r = await checkStartRequest(input as never, {});
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    const hit = problems.find((p) => p.path === path);
    expect(hit, JSON.stringify(problems)).toBeDefined();
    if (code !== undefined) expect(hit?.code).toContain(code);
  });

  it('refuses standard input without the stdin grant, in place; with it the request passes', async () => {
    const without = await checkStartRequest(
      { argv: ['cat'], policy: { v: 1, capabilities: ['stdout'] }, stdin: 'x' },
      {},
    );
    expect(without.ok ? [] : without.problems).toEqual([
      expect.objectContaining({ code: expect.toBeTrustCode('SANDBOX_CAPABILITY_MISSING'), path: 'stdin' }),
    ]);
    const granted = await checkStartRequest(
      { argv: ['cat'], policy: { v: 1, capabilities: ['stdout', 'stdin'] }, stdin: 'x' },
      {},
    );
    expect(granted.ok).toBe(true);
  });

  it('reports the policy, the egress policy and argv problems together', async () => {
    const r = await checkStartRequest(
      { argv: ['a\0'], policy: { v: 1, limits: { timeMs: -1 } }, egress: { v: 9 } },
      {},
    );
    expect(r.ok ? [] : r.problems.map((p) => p.path.split('.')[0])).toEqual(
      expect.arrayContaining(['policy', 'egress', 'argv']),
    );
  });
});

describe('problemPath', () => {
  it.each([
    ['policy', '(top level)', 'policy'],
    ['policy', 'capabilities[0]', 'policy.capabilities.0'],
    ['egress', 'http.allow[2]', 'egress.http.allow.2'],
    ['egress', undefined, 'egress'],
  ])('%s + %s = %s', (prefix, path, want) => expect(problemPath(prefix, path)).toBe(want));
});
