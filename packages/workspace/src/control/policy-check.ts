import {
  compilePolicy,
  createPrincipal,
  formatCidr,
  isTrustError,
  parsePolicyText,
  type PolicyFile,
} from '@trust/core';
import { explainUrl } from '@trust/egress';

/** One problem of a policy, as the real validator reports it: where, what, and how to fix it. */
export interface PolicyProblemView {
  readonly code: string;
  readonly path: string;
  readonly message: string;
  readonly hint?: string;
}

/** The validator's answer for a policy text: valid (with what it allows), or every problem at once. */
export type PolicyValidation =
  | { readonly ok: true; readonly name?: string; readonly sections: readonly string[] }
  | { readonly ok: false; readonly problems: readonly PolicyProblemView[] };

/** One step of a check, as `trust egress check` prints it. */
export interface PolicyCheckStep {
  readonly step: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** The answer of a live check: the steps, the verdict, and the policy's problems when it is not valid. */
export interface PolicyCheckResult {
  readonly url: string;
  readonly mode: 'default' | 'allow-local' | 'strict';
  readonly allow: boolean;
  readonly steps: readonly PolicyCheckStep[];
  readonly addresses: readonly string[];
  readonly rule?: string;
  readonly code?: string;
  readonly reason?: string;
  readonly hint?: string;
  readonly problems?: readonly PolicyProblemView[];
}

export interface PolicyCheckInput {
  /** The policy file text; omitted: the address guard alone. */
  readonly text?: string;
  readonly url: string;
  /** Overrides the policy's guard mode. */
  readonly mode?: 'default' | 'allow-local' | 'strict';
  /** Answers for names instead of DNS, like `--resolve`; unlisted names then fail to resolve. */
  readonly resolve?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Validates a policy text with the core validator (`parsePolicyText`), every problem with its
 * path, code and hint. Never throws for a bad policy.
 *
 * @example
 * validatePolicy('{ "v": 1, "htp": {} }'); // { ok: false, problems: [{ code: 'POLICY_UNKNOWN_KEY', path: 'htp', … }] }
 */
export function validatePolicy(text: string): PolicyValidation {
  try {
    const file: PolicyFile = parsePolicyText(text);
    return {
      ok: true,
      ...(file.name === undefined ? {} : { name: file.name }),
      sections: (['http', 'tcp', 'udp', 'guard'] as const).filter((s) => file[s] !== undefined),
    };
  } catch (e) {
    return { ok: false, problems: problemsOf(e) };
  }
}

/**
 * Checks a URL against the address guard and then the policy (a GET by the owner), step by step,
 * exactly as `trust egress check --policy` does. Header values the policy would inject are
 * secrets and never shown; `env` supplies `{ "env": NAME }` values (a missing one is a problem).
 *
 * @example
 * await checkPolicyUrl({ text, url: 'https://api.github.com/zen' }, process.env);
 */
export async function checkPolicyUrl(
  input: PolicyCheckInput,
  env: Readonly<Record<string, string | undefined>>,
): Promise<PolicyCheckResult> {
  let compiled: ReturnType<typeof compilePolicy> | undefined;
  if (input.text !== undefined) {
    try {
      compiled = compilePolicy(parsePolicyText(input.text), { env });
    } catch (e) {
      const problems = problemsOf(e);
      return {
        url: input.url,
        mode: input.mode ?? 'default',
        allow: false,
        steps: [{ step: 'policy', ok: false, detail: `${problems.length} problem(s) in the policy` }],
        addresses: [],
        code: 'POLICY_INVALID',
        reason: 'the policy is not valid',
        problems,
      };
    }
  }
  const guard = compiled?.guard;
  const mode = input.mode ?? guard?.mode ?? 'default';
  const table = input.resolve;
  const explained = await explainUrl(input.url, {
    mode,
    ...(guard?.protectedPorts ? { protectedPorts: guard.protectedPorts } : {}),
    allowCidrs: (guard?.allowCidrs ?? []).map((c) => formatCidr(c)),
    denyCidrs: (guard?.denyCidrs ?? []).map((c) => formatCidr(c)),
    ...(table === undefined
      ? {}
      : {
          resolve: async (host: string) => {
            const hit = table[host.toLowerCase().replace(/\.$/, '')];
            if (hit === undefined)
              throw Object.assign(new Error(`${host} is not in the resolve table`), { code: 'ENOTFOUND' });
            return [...hit];
          },
        }),
  });
  const steps: PolicyCheckStep[] = explained.steps.map((s) => ({ step: s.step, ok: s.ok, detail: s.detail }));
  const v = explained.verdict;
  const base = { url: input.url, mode, addresses: [...v.addresses] };
  if (!v.allow)
    return {
      ...base,
      allow: false,
      steps,
      code: v.code,
      reason: v.reason,
      ...(v.hint === undefined ? {} : { hint: v.hint }),
      ...(v.rule === undefined ? {} : { rule: v.rule }),
    };
  if (compiled === undefined || v.url === undefined)
    return { ...base, allow: true, steps, ...(v.rule === undefined ? {} : { rule: v.rule }) };
  const u = v.url;
  const decision = await compiled.policy.authorizeHttp(
    {
      method: 'GET',
      url: u.href,
      scheme: u.protocol as 'http:',
      host: v.host ?? u.hostname,
      port: v.port ?? 0,
      path: u.pathname,
      headers: new Headers(),
    },
    { principal: createPrincipal('owner', 'control-api'), capability: 'http' },
  );
  steps.splice(steps.length - 1, 0, {
    step: 'policy',
    ok: decision.allow,
    detail: decision.allow ? `allow (${decision.rule ?? 'policy'})` : `${decision.code}: ${decision.reason}`,
  });
  const last = steps[steps.length - 1]!;
  steps[steps.length - 1] = {
    step: 'verdict',
    ok: decision.allow,
    detail: decision.allow ? last.detail : decision.code,
  };
  if (decision.allow)
    return { ...base, allow: true, steps, ...((decision.rule ?? v.rule) ? { rule: (decision.rule ?? v.rule)! } : {}) };
  return {
    ...base,
    allow: false,
    steps,
    code: decision.code,
    reason: decision.reason,
    ...(decision.hint === undefined ? {} : { hint: decision.hint }),
    ...(decision.rule === undefined ? {} : { rule: decision.rule }),
  };
}

function problemsOf(e: unknown): PolicyProblemView[] {
  if (!isTrustError(e)) throw e;
  if (e.problems.length > 0)
    return e.problems.map((p) => ({
      code: p.code,
      path: p.path ?? '',
      message: p.message,
      ...(p.hint === undefined ? {} : { hint: p.hint }),
    }));
  return [{ code: e.code, path: '', message: e.message, ...(e.hint === undefined ? {} : { hint: e.hint }) }];
}
