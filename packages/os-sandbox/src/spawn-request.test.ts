// The one boundary of a run's caller-supplied values (decisions only; nothing is planned or spawned).
import { describe, expect, it } from 'vitest';
import { parseSandboxPolicy, type SandboxPolicy } from './policy.js';
import { evaluatePolicyValues, evaluateSpawnRequest } from './spawn-request.js';

/** The verified attack: a NUL in cwd or an env name became extra bwrap options (host /etc mounted). */
const INJECT = '\0--ro-bind\0/etc\0/proj/etc';

describe('evaluateSpawnRequest', () => {
  it.each([
    ['cwd with NUL-separated bwrap options', ['/bin/cat'], { cwd: `/proj${INJECT}` }, 'SANDBOX_CWD_INVALID'],
    ['cwd with --bind / (host root writable)', ['/bin/sh'], { cwd: '/proj/\0--bind\0/\0/host' }, 'SANDBOX_CWD_INVALID'],
    ['cwd with a newline', ['/bin/true'], { cwd: '/proj/a\nb' }, 'SANDBOX_CWD_INVALID'],
    ['cwd with DEL', ['/bin/true'], { cwd: '/proj/\u007f' }, 'SANDBOX_CWD_INVALID'],
    ['cwd with ..', ['/bin/true'], { cwd: '/proj/../etc' }, 'SANDBOX_CWD_INVALID'],
    ['relative cwd', ['/bin/true'], { cwd: 'proj' }, 'SANDBOX_CWD_INVALID'],
    [
      'env name with NUL-separated bwrap options',
      ['/bin/true'],
      { env: { [`A${INJECT}\0--setenv\0B`]: 'x' } },
      'SANDBOX_ENV_INVALID',
    ],
    ['env name with =', ['/bin/true'], { env: { 'A=B': 'x' } }, 'SANDBOX_ENV_INVALID'],
    ['env name starting with a dash', ['/bin/true'], { env: { '--ro-bind': 'x' } }, 'SANDBOX_ENV_INVALID'],
    ['empty env name', ['/bin/true'], { env: { '': 'x' } }, 'SANDBOX_ENV_INVALID'],
    ['env name with a digit first', ['/bin/true'], { env: { '1A': 'x' } }, 'SANDBOX_ENV_INVALID'],
    ['env value with NUL', ['/bin/true'], { env: { A: `x${INJECT}` } }, 'SANDBOX_ENV_INVALID'],
    ['env value not a string', ['/bin/true'], { env: { A: 1 } }, 'SANDBOX_ENV_INVALID'],
    ['argv word with NUL', ['/bin/echo', `x${INJECT}`], {}, 'SANDBOX_ARGV_INVALID'],
    ['empty argv', [], {}, 'SANDBOX_ARGV_INVALID'],
    ['empty program', [''], {}, 'SANDBOX_ARGV_INVALID'],
    ['argv not strings', [1], {}, 'SANDBOX_ARGV_INVALID'],
    ['negative timeout', ['/bin/true'], { timeoutMs: -1 }, 'SANDBOX_LIMIT_INVALID'],
    ['NaN output cap', ['/bin/true'], { maxOutputBytes: Number.NaN }, 'SANDBOX_LIMIT_INVALID'],
  ])('refuses %s', (_, argv, opts, code) => {
    const d = evaluateSpawnRequest(argv, opts as never);
    expect(d).toMatchObject({ allow: false, code });
  });

  it('allows any other character in argv and env values, and returns a frozen copy', () => {
    const env = { LOG_LEVEL: 'a b\n\t"\'$(x)', _x1: '' };
    const d = evaluateSpawnRequest(['/bin/echo', 'a\nb', '--ro-bind', ''], { env, cwd: '/proj//sub/', timeoutMs: 5 });
    expect(d.allow).toBe(true);
    if (!d.allow) return;
    expect(d.request).toEqual({
      argv: ['/bin/echo', 'a\nb', '--ro-bind', ''],
      env,
      cwd: '/proj/sub',
      timeoutMs: 5,
      maxOutputBytes: undefined,
    });
    expect(Object.isFrozen(d.request.env)).toBe(true);
    expect(Object.isFrozen(d.request.argv)).toBe(true);
  });

  it("reads the caller's env once: a getter that changes its answer later is not asked again", () => {
    let reads = 0;
    const env = {
      get A() {
        reads += 1;
        return reads === 1 ? 'ok' : `x${INJECT}`;
      },
    };
    const d = evaluateSpawnRequest(['/bin/true'], { env: env as Record<string, string> });
    expect(d.allow && d.request.env?.A).toBe('ok');
    expect(d.allow && d.request.env?.A).toBe('ok');
    expect(reads).toBe(1);
  });
});

describe('evaluatePolicyValues', () => {
  // The policy parser refuses these too; this is the boundary's own check, on a policy object
  // built around it (as a caller passing an already parsed, hand-made policy could).
  const base = parseSandboxPolicy({ v: 1 });
  const withCaps = (fsGrants: { mode: 'ro' | 'rw'; path: string }[], envNames: string[] = []): SandboxPolicy =>
    ({ ...base, capabilities: { ...base.capabilities, fsGrants, envNames } }) as SandboxPolicy;
  it.each([
    ['a grant with a NUL', withCaps([{ mode: 'rw', path: `/proj${INJECT}` }])],
    ['a grant with a newline', withCaps([{ mode: 'ro', path: '/data\n' }])],
    ['a grant with ..', withCaps([{ mode: 'ro', path: '/data/../etc' }])],
    ['an env grant that is not a plain name', withCaps([], [`A${INJECT}`])],
    ['a hidden path with a NUL', { ...base, hiddenPaths: [`/proj${INJECT}`] } as SandboxPolicy],
    ['a system root with a NUL', { ...base, systemRoots: [`/opt${INJECT}`] } as SandboxPolicy],
  ])('refuses %s (SANDBOX_POLICY_INVALID)', (_, policy) => {
    expect(evaluatePolicyValues(policy)).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('SANDBOX_POLICY_INVALID'),
    });
  });

  it('allows plain paths and names', () => {
    expect(
      evaluatePolicyValues(
        parseSandboxPolicy({ v: 1, capabilities: ['fs:rw:/srv/p', 'env:LOG_LEVEL'], hiddenPaths: ['/srv/p/.secret'] }),
      ).allow,
    ).toBe(true);
  });
});
