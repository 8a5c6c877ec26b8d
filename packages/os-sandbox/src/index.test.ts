import { describe, expect, it } from 'vitest';
import * as mod from './index.js';

describe('@trust/os-sandbox public API', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(mod).sort()).toEqual([
      'BASE_ENV_NAMES',
      'DEFAULT_OUTPUT_BYTES',
      'DEFAULT_PATH',
      'DEFAULT_TIME_MS',
      'DEGRADED_MODES',
      'ENV_NAME_PATTERN',
      'ETC_FILES',
      'PROTECTED_DIRS',
      'PROTECTED_ENTRIES',
      'PROTECTED_FILES',
      'PROTECTED_GIT',
      'SANDBOX_EXEC',
      'SANDBOX_LAYOUT',
      'SECCOMP_BLOCKED',
      'SECCOMP_FD',
      'SENSITIVE_ROOTS',
      'USRMERGE_FACTS',
      'buildSandboxEnv',
      'buildSeccompFilter',
      'collectPathFacts',
      'createSandbox',
      'ensureLauncher',
      'evaluateExplicitEnv',
      'evaluateSpawnRequest',
      'launcherCacheDir',
      'launcherSourcePath',
      'linuxPathsOfInterest',
      'looksLikeSecretName',
      'parseSandboxPolicy',
      'planBwrap',
      'planSandbox',
      'planSeatbelt',
      'probeSandbox',
      'protectedEntriesOf',
      'proxyEnv',
      'readAll',
      'sandboxPolicySchema',
      'seccompArchOf',
      'verifyLauncher',
    ]);
  });
});
