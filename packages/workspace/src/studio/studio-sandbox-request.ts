// A studio start request, checked by the sandbox's and the egress engine's own validators: the
// sandbox policy schema, the capability parser, the spawn boundary (`evaluateSpawnRequest`, which
// refuses NUL bytes in argv and control bytes in the working directory) and the egress policy file
// validator. Every problem comes back with its place in the request, never thrown.
import type { ControlServerOptions } from '../control/index.js';
import type { EgressPolicy } from '@trust/core';
import { checkSandboxPolicy } from '../sandbox-runs/sandbox-policy-check.js';

type SandboxControl = NonNullable<ControlServerOptions['sandboxControl']>;
/** A start request as the control API hands it over (sizes checked, contents not). */
export type StartInput = Parameters<SandboxControl['start']>[0];
/** One problem, with its place in the request (`policy.capabilities.0`, `argv.1`, `egress.http.allow.0`). */
export type StartProblem = Extract<Awaited<ReturnType<SandboxControl['validate']>>, { ok: false }>['problems'][number];

/** The host's caps on a studio run; a policy may only ask for less. */
export interface StudioRunCaps {
  /** Wall-clock limit of one run, in ms. */
  readonly maxTimeMs: number;
  /** Bytes kept per output stream of one run. */
  readonly maxOutputBytes: number;
}

export const STUDIO_RUN_CAPS: StudioRunCaps = Object.freeze({ maxTimeMs: 10 * 60_000, maxOutputBytes: 256 * 1024 });

/** A request that passed every check: what to start, with the limits in force. */
export interface CheckedStart {
  readonly argv: readonly string[];
  readonly cwd: string | undefined;
  readonly policy: Record<string, unknown>;
  readonly egress: { readonly policy: EgressPolicy; readonly guard: Record<string, unknown> } | undefined;
  readonly limits: { readonly timeMs: number; readonly outputBytes: number };
}

const NETWORK_CAPS = new Set(['http', 'tcp', 'udp']);

/** `a.b[0].c` and `a.b.0.c` alike become `a.b.0.c`, under `prefix`. */
export function problemPath(prefix: string, path: string | undefined): string {
  const p = (path ?? '')
    .replace(/^\(.*\)$/, '')
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/^\./, '');
  return p === '' ? prefix : `${prefix}.${p}`;
}

interface WithProblems {
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
  readonly problems?: readonly { code: string; path?: string; message: string; hint?: string }[];
}

/** The problems an error carries (each under `prefix`), or the error itself as one problem. */
export function problemsOf(err: WithProblems, prefix: string): StartProblem[] {
  const list = err.problems ?? [];
  if (list.length === 0)
    return [{ code: err.code, path: prefix, message: err.message, ...(err.hint ? { hint: err.hint } : {}) }];
  return list.map((p) => ({
    code: p.code,
    path: problemPath(prefix, p.path),
    message: p.message,
    ...(p.hint ? { hint: p.hint } : {}),
  }));
}

const isCoded = (e: unknown): e is WithProblems =>
  e instanceof Error && typeof (e as { code?: unknown }).code === 'string';

/**
 * Checks a start request and returns what to start, or every problem found (the policy, the
 * egress policy and argv are all checked, so one answer lists them all).
 *
 * @example
 * const r = await checkStartRequest({ argv: ['echo', 'hi'], policy: { v: 1, capabilities: ['stdout'] } }, process.env);
 * r.ok; // true
 */
export async function checkStartRequest(
  input: StartInput,
  env: Readonly<Record<string, string | undefined>>,
  caps: StudioRunCaps = STUDIO_RUN_CAPS,
): Promise<{ ok: true; start: CheckedStart } | { ok: false; problems: StartProblem[] }> {
  const os = await import('@trust/os-sandbox');
  const core = await import('@trust/core');
  const problems: StartProblem[] = [];
  const policy = input.policy;
  let capabilities: string[] = [];
  let limits = { timeMs: caps.maxTimeMs, outputBytes: caps.maxOutputBytes };
  try {
    checkSandboxPolicy(os.sandboxPolicySchema as never, policy, 'policy');
    const parsed = os.parseSandboxPolicy(policy);
    capabilities = parsed.capabilities.toStrings();
    limits = {
      timeMs: Math.min(parsed.limits.timeMs ?? os.DEFAULT_TIME_MS, caps.maxTimeMs),
      outputBytes: Math.min(parsed.limits.outputBytes ?? os.DEFAULT_OUTPUT_BYTES, caps.maxOutputBytes),
    };
  } catch (e) {
    if (!isCoded(e)) throw e;
    problems.push(...problemsOf(e, 'policy'));
  }
  let egress: CheckedStart['egress'];
  if (input.egress !== undefined && input.egress !== null) {
    try {
      const { policy: compiled, guard } = core.compilePolicy(core.parsePolicyText(JSON.stringify(input.egress)), {
        env,
      });
      egress = {
        policy: compiled,
        guard: guard
          ? {
              mode: guard.mode,
              ...(guard.protectedPorts ? { protectedPorts: guard.protectedPorts } : {}),
              allowCidrs: guard.allowCidrs.map((c) => core.formatCidr(c)),
              denyCidrs: guard.denyCidrs.map((c) => core.formatCidr(c)),
            }
          : {},
      };
    } catch (e) {
      if (!isCoded(e)) throw e;
      problems.push(...problemsOf(e, 'egress'));
    }
  } else if (capabilities.some((c) => NETWORK_CAPS.has(c))) {
    problems.push({
      code: 'EGRESS_NO_POLICY',
      path: 'egress',
      message:
        `the ${capabilities.filter((c) => NETWORK_CAPS.has(c)).join('/')} capability ` +
        'needs an egress policy to judge destinations',
      hint: 'add allowed hosts, e.g. {"v":1,"http":{"allow":["api.example.com"]}}',
    });
  }
  if (
    input.stdin !== undefined &&
    problems.every((p) => !p.path.startsWith('policy')) &&
    !capabilities.includes('stdin')
  )
    problems.push({
      code: 'SANDBOX_CAPABILITY_MISSING',
      path: 'stdin',
      message: 'standard input was given but the policy does not grant "stdin"',
      hint: 'add "stdin" to the capabilities, or leave the input empty',
    });
  // The sandbox's own spawn boundary: NUL bytes in argv, control bytes or dot segments in cwd.
  const spawn = os.evaluateSpawnRequest(input.argv, {
    ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
    timeoutMs: limits.timeMs,
    maxOutputBytes: limits.outputBytes,
  });
  if (!spawn.allow) {
    const at = /argv\[(\d+)\]/.exec(spawn.reason)?.[1];
    const path = spawn.code === 'SANDBOX_CWD_INVALID' ? 'cwd' : at === undefined ? 'argv' : `argv.${at}`;
    problems.push({ code: spawn.code, path, message: spawn.reason, ...(spawn.hint ? { hint: spawn.hint } : {}) });
  }
  if (problems.length > 0 || !spawn.allow) return { ok: false, problems };
  return {
    ok: true,
    start: { argv: spawn.request.argv, cwd: spawn.request.cwd, policy: { ...policy }, egress, limits },
  };
}
