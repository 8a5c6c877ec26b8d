export { createSandbox } from './sandbox.js';
export type { CreateSandboxOptions, Sandbox, SandboxExit, SandboxProcess, SpawnOptions } from './sandbox.js';
export { planSandbox } from './plan.js';
export type { SandboxPlan, SandboxPlatform } from './plan.js';
export { planBwrap, linuxPathsOfInterest, SANDBOX_LAYOUT, SECCOMP_FD } from './bwrap-plan.js';
export { buildSeccompFilter, seccompArchOf, SECCOMP_BLOCKED } from './seccomp.js';
export type { SeccompArch } from './seccomp.js';
export type { LinuxBridge, LinuxPin, LinuxPlan, LinuxPlanContext, Rlimit } from './bwrap-plan.js';
export { planSeatbelt, SANDBOX_EXEC } from './seatbelt-plan.js';
export type { DarwinPlan, DarwinPlanContext } from './seatbelt-plan.js';
export {
  DEFAULT_OUTPUT_BYTES,
  DEFAULT_TIME_MS,
  DEGRADED_MODES,
  parseSandboxPolicy,
  sandboxPolicySchema,
} from './policy.js';
export type { DegradedMode, SandboxPolicy, SandboxPolicyInput } from './policy.js';
export { ENV_NAME_PATTERN, evaluateSpawnRequest } from './spawn-request.js';
export type { SpawnRequest, SpawnRequestDecision } from './spawn-request.js';
export { BASE_ENV_NAMES, DEFAULT_PATH, buildSandboxEnv, evaluateExplicitEnv, looksLikeSecretName } from './env.js';
export type { EnvInput } from './env.js';
export { USRMERGE_FACTS, collectPathFacts } from './host-facts.js';
export type { HostFacts, PathFact } from './host-facts.js';
export {
  ETC_FILES,
  PROTECTED_DIRS,
  PROTECTED_ENTRIES,
  PROTECTED_FILES,
  PROTECTED_GIT,
  SENSITIVE_ROOTS,
  protectedEntriesOf,
} from './protected-paths.js';
export type { ProtectedEntry } from './protected-paths.js';
export { probeSandbox } from './probe.js';
export type { ProbeOptions, SandboxProbe } from './probe.js';
export { ensureLauncher, launcherCacheDir, launcherSourcePath, verifyLauncher } from './launcher.js';
export type { Launcher } from './launcher.js';
export { proxyEnv } from './network.js';
export type {
  EgressProxyFactory,
  EgressProxyHandle,
  EgressProxyRequest,
  SandboxGuardOptions,
  SandboxViolation,
} from './network.js';
export { readAll } from './output-capture.js';
