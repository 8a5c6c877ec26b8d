import { deny, type Decision, type Deny } from './decision.js';
import { TrustError } from './error.js';
import type { EgressContext, EgressHttpRequest, EgressPeer, EgressPolicy } from './egress-policy.js';
import { createFilter, filterChecksOf } from './policy-filter.js';

/**
 * A policy that denies everything (`EGRESS_DENY_ALL`). It is a filter: inside `chain(...)` it
 * stops every request, whatever the gates say; on its own it denies too.
 *
 * @example
 * chain(denyAll, allowHosts(['api.example.com'])); // denies api.example.com too
 */
export const denyAll: EgressPolicy = createFilter('deny-all', {
  http: (request: EgressHttpRequest) =>
    deny(
      'EGRESS_DENY_ALL',
      `egress denied: ${request.host}:${request.port} (all egress is denied by policy deny-all)`,
      {
        rule: 'deny-all',
        hint: 'replace deny-all with a policy that allows this host, e.g. allowHosts(["api.example.com"])',
      },
    ),
  tcp: (peer: EgressPeer) => denyPeer('tcp', peer),
  udp: (peer: EgressPeer) => denyPeer('udp', peer),
});

function denyPeer(kind: string, peer: EgressPeer): Deny {
  return deny(
    'EGRESS_DENY_ALL',
    `egress denied: ${kind} ${peer.host}:${peer.port} (all egress is denied by policy deny-all)`,
    {
      rule: 'deny-all',
    },
  );
}

/** Where a chain keeps its members, so a nested chain can be flattened into its parent. */
const MEMBERS = Symbol('trust.chain.members');

// `undefined`: the policy has no method for this traffic; `null`: it answered with nothing.
type Step = (policy: EgressPolicy) => Decision | Promise<Decision> | null | undefined;

interface ChainState {
  granted: Decision | undefined;
  firstGateDeny: Deny | undefined;
}

/** A member that answers with anything but a Decision stops the chain with a deny (fail closed). */
function malformed(policy: EgressPolicy): Deny {
  return deny(
    'EGRESS_POLICY_INVALID',
    `egress denied: policy ${policy.name ?? 'unnamed'} answered with something other than a Decision`,
    {
      rule: policy.name ?? 'chain',
      hint: 'a policy returns { allow: true } or { allow: false, code, reason }',
    },
  );
}

/** Applies one answer; returns a final decision when the chain must stop. */
function apply(state: ChainState, policy: EgressPolicy, answer: unknown): Decision | undefined {
  const role = policy.role ?? 'gate';
  const d = answer as Decision | null | undefined;
  if (typeof d !== 'object' || d === null || (d.allow !== true && (d.allow !== false || typeof d.code !== 'string')))
    return malformed(policy);
  if (!d.allow) {
    if (role === 'filter') return d;
    state.firstGateDeny ??= d;
    return undefined;
  }
  if (role === 'gate') state.granted ??= d;
  return undefined;
}

function finish(state: ChainState, what: string): Decision {
  if (state.granted) return state.granted;
  if (state.firstGateDeny) return state.firstGateDeny;
  return deny('EGRESS_NO_POLICY', `egress denied: no policy in the chain allows ${what}`, {
    rule: 'chain',
    hint: 'add a gate such as allowHosts([...]) to the chain',
  });
}

function isThenable(v: unknown): v is Promise<Decision> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

async function runAsync(
  policies: readonly EgressPolicy[],
  from: number,
  pending: Promise<Decision>,
  state: ChainState,
  step: Step,
  what: string,
): Promise<Decision> {
  const first = apply(state, policies[from] as EgressPolicy, await pending);
  if (first) return first;
  for (let i = from + 1; i < policies.length; i++) {
    const p = policies[i] as EgressPolicy;
    if ((p.role ?? 'gate') === 'gate' && state.granted) continue;
    const r = step(p);
    if (r === undefined) continue;
    const stop = apply(state, p, await r);
    if (stop) return stop;
  }
  return finish(state, what);
}

function run(policies: readonly EgressPolicy[], step: Step, what: string): Decision | Promise<Decision> {
  const state: ChainState = { granted: undefined, firstGateDeny: undefined };
  for (let i = 0; i < policies.length; i++) {
    const p = policies[i] as EgressPolicy;
    // Once a gate has allowed, later gates have nothing to add; filters still run.
    if ((p.role ?? 'gate') === 'gate' && state.granted) continue;
    const r = step(p);
    if (r === undefined) continue;
    if (isThenable(r)) return runAsync(policies, i, r, state, step, what);
    const stop = apply(state, p, r);
    if (stop) return stop;
  }
  return finish(state, what);
}

/**
 * Composes policies. Evaluation order, fixed and fail-closed:
 * 1. Policies run in the order given. A **filter** that denies stops the chain: its deny is the
 *    result (deny first).
 * 2. A **gate** that allows grants the request (allow); later gates are skipped, later filters
 *    still run and may still deny or add headers. A gate's deny only means "not mine".
 * 3. If no gate allowed, the result is deny (deny last): the first gate's deny, which carries its
 *    hint, or `EGRESS_NO_POLICY` when the chain has no gate answering this kind of traffic.
 *
 * A policy without `authorizeTcp`/`authorizeUdp` is skipped for that traffic. The chain itself is
 * a gate. A chain passed to `chain` is flattened into it (chains are associative), so a filter's
 * deny inside a nested chain still stops the outer one. Answers may be sync or async; the chain is sync while every
 * answer is.
 *
 * @example
 * const policy = chain(
 *   denyHosts(['admin.example.com']),
 *   allowHosts(['*.example.com']),
 *   injectHeaders(['api.example.com'], { authorization: 'Bearer ...' }),
 * );
 */
export function chain(...policies: readonly EgressPolicy[]): EgressPolicy {
  for (const p of policies) {
    if (typeof p !== 'object' || p === null || typeof p.authorizeHttp !== 'function') {
      throw new TrustError('POLICY_INVALID', 'chain() takes EgressPolicy objects', {
        hint: 'pass policies such as allowHosts([...]) or denyAll',
      });
    }
    if (p.role !== undefined && p.role !== 'gate' && p.role !== 'filter') {
      throw new TrustError(
        'POLICY_INVALID',
        `policy ${p.name ?? 'unnamed'} has an unknown role ${JSON.stringify(p.role)}`,
        {
          hint:
            'role is "gate" (may grant) or "filter" (may only deny or add headers); a misspelt filter would ' +
            'lose its veto',
        },
      );
    }
  }
  const list = Object.freeze(policies.flatMap((p) => (p as { [MEMBERS]?: readonly EgressPolicy[] })[MEMBERS] ?? [p]));
  const names = list.map((p) => p.name ?? 'unnamed').join(', ');
  return Object.freeze({
    name: `chain(${names})`,
    role: 'gate' as const,
    [MEMBERS]: list,
    // A built-in filter answers through its checks (undefined = no objection); any other policy
    // through its public methods, where a filter's allow is ignored by `apply`.
    authorizeHttp: (request: EgressHttpRequest, context: EgressContext) =>
      run(
        list,
        (p) => {
          const checks = filterChecksOf(p);
          return checks ? checks.http?.(request, context) : (p.authorizeHttp(request, context) ?? null);
        },
        `${request.method} ${request.host}:${request.port}`,
      ),
    authorizeTcp: (peer: EgressPeer, context: EgressContext) =>
      run(
        list,
        (p) => {
          const checks = filterChecksOf(p);
          return checks
            ? checks.tcp?.(peer, context)
            : p.authorizeTcp
              ? (p.authorizeTcp(peer, context) ?? null)
              : undefined;
        },
        `tcp ${peer.host}:${peer.port}`,
      ),
    authorizeUdp: (peer: EgressPeer, context: EgressContext) =>
      run(
        list,
        (p) => {
          const checks = filterChecksOf(p);
          return checks
            ? checks.udp?.(peer, context)
            : p.authorizeUdp
              ? (p.authorizeUdp(peer, context) ?? null)
              : undefined;
        },
        `udp ${peer.host}:${peer.port}`,
      ),
  });
}
