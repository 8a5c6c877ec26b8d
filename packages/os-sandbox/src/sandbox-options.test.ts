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
    const options = { spawnserver: false, placeholderLingerMs: -1, bridge: 'x' };
    expect(() => parseSandboxOptions(options)).toRefuseOptions('SANDBOX_POLICY_INVALID', [
      { code: 'SANDBOX_POLICY_INVALID', path: 'bridge' },
      { code: 'SANDBOX_POLICY_INVALID', path: 'placeholderLingerMs', hint: /placeholderLingerMs: 3000/ },
      {
        code: 'SANDBOX_POLICY_UNKNOWN_KEY',
        path: 'spawnserver',
        hint: /did you mean "spawnServer"\? known options: .*spawnServer/,
      },
    ]);
  });

  it("checks guard options with @trust/egress's strict check at creation, each problem at guard.<path>", () => {
    expect(() => parseSandboxOptions({ guard: { mdoe: 'strict', protectedPorts: [0] } })).toRefuseOptions(
      'SANDBOX_POLICY_INVALID',
      [
        { code: 'SANDBOX_POLICY_INVALID', path: 'guard.mdoe', message: /did you mean "mode"\?/ },
        { code: 'SANDBOX_POLICY_INVALID', path: 'guard.protectedPorts.0' },
      ],
    );
  });
});
