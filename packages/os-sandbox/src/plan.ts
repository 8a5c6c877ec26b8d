import { TrustError } from '@trust/core';
import { planBwrap, SANDBOX_LAYOUT, type LinuxPlan, type LinuxPlanContext } from './bwrap-plan.js';
import { DEFAULT_PATH } from './env.js';
import { USRMERGE_FACTS } from './host-facts.js';
import { parseSandboxPolicy, type SandboxPolicy, type SandboxPolicyInput } from './policy.js';
import { planSeatbelt, type DarwinPlan, type DarwinPlanContext } from './seatbelt-plan.js';

/** A plan for either platform. */
export type SandboxPlan = LinuxPlan | DarwinPlan;

/** The platforms a plan can be made for. */
export type SandboxPlatform = 'linux' | 'darwin';

/**
 * Turns a policy and an argv into a plan, without touching the host: the bwrap argv on Linux,
 * the seatbelt profile text with its `-D` parameters on macOS. Without a `context`, a
 * deterministic one is used (Debian-style usrmerge facts, HOME and TMPDIR in the sandbox, an
 * empty source environment), which is what the snapshot tests pin.
 *
 * @example
 * const plan = planSandbox({ v: 1, capabilities: ['fs:rw:/srv/project'] }, ['/bin/true'], 'linux');
 * if (plan.platform === 'linux') console.log(plan.args.join(' '));
 */
export function planSandbox(
  policy: SandboxPolicy | SandboxPolicyInput,
  argv: readonly string[],
  platform: SandboxPlatform,
  context?: Partial<LinuxPlanContext> | Partial<DarwinPlanContext>,
): SandboxPlan {
  const p: SandboxPolicy = parseSandboxPolicy(policy);
  if (!Array.isArray(argv) || argv.some((x) => typeof x !== 'string' || x.includes('\0'))) {
    throw new TrustError('SANDBOX_ARGV_INVALID', 'argv must be an array of strings without NUL bytes', {
      hint: 'pass ["/usr/bin/env", "node", "script.js"], never a shell command string',
    });
  }
  if (platform === 'linux') {
    const c = (context ?? {}) as Partial<LinuxPlanContext>;
    return planBwrap(p, argv, {
      ...c,
      facts: c.facts ?? USRMERGE_FACTS,
      env: c.env ?? { PATH: DEFAULT_PATH, HOME: SANDBOX_LAYOUT.home, TMPDIR: SANDBOX_LAYOUT.tmp },
      cwd: c.cwd ?? SANDBOX_LAYOUT.home,
      empty: c.empty ?? { file: '/tmp/trust-sandbox/empty', dir: '/tmp/trust-sandbox/empty.d' },
      seccomp: c.seccomp ?? true,
    });
  }
  if (platform === 'darwin') {
    const c = (context ?? {}) as Partial<DarwinPlanContext>;
    const home = c.home ?? '/private/tmp/trust-sandbox/run/home';
    const tmpdir = c.tmpdir ?? '/private/tmp/trust-sandbox/run/tmp';
    return planSeatbelt(p, argv, {
      env: c.env ?? { PATH: DEFAULT_PATH, HOME: home, TMPDIR: tmpdir },
      home,
      tmpdir,
      ...(c.proxyPort !== undefined ? { proxyPort: c.proxyPort } : {}),
    });
  }
  throw new TrustError('SANDBOX_UNAVAILABLE', `no sandbox backend for platform ${JSON.stringify(platform)}`, {
    hint: 'trust sandboxes processes on linux (bubblewrap) and darwin (seatbelt)',
  });
}
