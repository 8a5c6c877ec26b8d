import { describe, expect, it } from 'vitest';
import { parseSandboxOptions } from './sandbox-options.js';

describe('parseSandboxOptions (one strict schema)', () => {
  it.each([
    [{}, true],
    [undefined, true],
    [
      {
        placeholderLingerMs: 0,
        prestart: false,
        spawnServer: true,
        bridge: 'socat',
        platform: 'linux',
        workDir: '/tmp/x',
      },
      true,
    ],
    [{ launcher: { path: '/opt/l', sha256: 'ab' }, launcherVerify: 'rebuild', launcherCacheDir: '/c' }, true],
    [
      {
        audit: { record: () => undefined },
        createProxy: async () => undefined,
        egress: { authorizeHttp: () => ({ allow: true, rule: 'test' }) },
        guard: {},
        env: {},
        probe: {},
      },
      true,
    ],
    [{ launcherCacheDir: undefined }, true],
    [{ placeholderLingerMs: -1 }, false],
    [{ placeholderLingerMs: Number.NaN }, false],
    [{ placeholderLingerMs: Infinity }, false],
    [{ bridge: 'tunnel' }, false],
    [{ launcher: { path: '/opt/l' } }, false],
    [{ launcher: { path: '/opt/l', sha256: 'ab', extra: 1 } }, false],
    [{ audit: {} }, false],
    [{ egress: {} }, false],
    [{ placeholderLingerMs: 2 ** 31 }, false],
    [{ createProxy: 'proxy' }, false],
    [{ spawnserver: false }, false],
    [{ guard: { mode: 'strict', protectedPorts: [7385], allowCidrs: ['10.0.0.0/8'] } }, true],
    [{ guard: { mdoe: 'strict' } }, false],
    [{ guard: { protectedPorts: [0] } }, false],
  ])('%j → valid: %s', (input, valid) => {
    if (valid) expect(() => parseSandboxOptions(input)).not.toThrow();
    else expect(() => parseSandboxOptions(input)).toThrowTrustError('SANDBOX_POLICY_INVALID');
  });

  it('reports every problem at once, an unknown key with the known ones, each with a hint', () => {
    try {
      parseSandboxOptions({ spawnserver: false, placeholderLingerMs: -1, bridge: 'x' });
      expect.unreachable();
    } catch (err) {
      const problems = (err as { problems: { code: string; path: string; hint: string }[] }).problems;
      expect(problems.map((p) => p.path).sort()).toEqual(['bridge', 'placeholderLingerMs', 'spawnserver']);
      const unknown = problems.find((p) => p.path === 'spawnserver');
      expect(unknown?.code).toBeTrustCode('SANDBOX_POLICY_UNKNOWN_KEY');
      expect(unknown?.hint).toMatch(/did you mean "spawnServer"\? known options: .*spawnServer/);
      expect(problems.find((p) => p.path === 'bridge')?.code).toBeTrustCode('SANDBOX_POLICY_INVALID');
      expect(problems.find((p) => p.path === 'placeholderLingerMs')?.hint).toMatch(/placeholderLingerMs: 3000/);
    }
  });

  it("checks guard options with @trust/egress's strict check at creation, each problem at guard.<path>", () => {
    try {
      parseSandboxOptions({ guard: { mdoe: 'strict', protectedPorts: [0] } });
      expect.unreachable();
    } catch (err) {
      const problems = (err as { problems: { code: string; path: string; message: string }[] }).problems;
      expect(problems.map((p) => p.path).sort()).toEqual(['guard.mdoe', 'guard.protectedPorts.0']);
      expect(problems.find((p) => p.path === 'guard.mdoe')?.message).toMatch(/did you mean "mode"\?/);
      expect(problems.every((p) => p.code === 'SANDBOX_POLICY_INVALID')).toBe(true);
    }
  });
});
