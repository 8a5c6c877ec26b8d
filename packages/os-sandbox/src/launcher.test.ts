// The launcher's cache location and how a sandbox keeps runs away from it (decisions only; nothing is compiled).
import { describe, expect, it } from 'vitest';
import { hideLauncher, launcherCacheDir } from './launcher.js';
import { parseSandboxPolicy } from './policy.js';

const CACHE = '/nonexistent-home/.cache/trust/launcher';

describe('launcherCacheDir', () => {
  it.each([
    [{ TRUST_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' }, '/c/launcher'],
    [{ TRUST_CACHE_DIR: 'rel', XDG_CACHE_HOME: '/x', HOME: '/h' }, '/x/trust/launcher'],
    [{ XDG_CACHE_HOME: '/x', HOME: '/h' }, '/x/trust/launcher'],
    [{ XDG_CACHE_HOME: '', HOME: '/h' }, '/h/.cache/trust/launcher'],
  ])('%j → %s', (env, dir) => {
    expect(launcherCacheDir(env)).toBe(dir);
  });
});

describe('hideLauncher', () => {
  it.each([
    ['fs:rw:/nonexistent-home', [CACHE]],
    ['fs:rw:/nonexistent-home/.cache', [CACHE]],
    ['fs:ro:/nonexistent-home', []],
    ['fs:rw:/nonexistent-home/.cached', []],
  ])('%s hides %j', (grant, hidden) => {
    expect(hideLauncher(parseSandboxPolicy({ v: 1, capabilities: [grant] }), CACHE).hiddenPaths).toEqual(hidden);
  });

  it.each(['fs:rw:/nonexistent-home/.cache/trust/launcher', 'fs:rw:/nonexistent-home/.cache/trust/launcher/abc'])(
    'refuses the writable grant %s inside it',
    (grant) => {
      expect(() => hideLauncher(parseSandboxPolicy({ v: 1, capabilities: [grant] }), CACHE)).toThrowTrustError(
        'SANDBOX_POLICY_INVALID',
      );
    },
  );

  it('leaves a read-only grant inside it alone', () => {
    const policy = parseSandboxPolicy({ v: 1, capabilities: [`fs:ro:${CACHE}/abc`] });
    expect(hideLauncher(policy, CACHE)).toBe(policy);
  });
});
