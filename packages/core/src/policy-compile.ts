import { parseCidr, type Cidr } from './cidr.js';
import type { EgressPolicy } from './egress-policy.js';
import { TrustError, type Problem } from './error.js';
import { chain } from './policy-chain.js';
import type { PolicyFile } from './policy-file-schema.js';
import { allowHosts, denyHosts } from './policy-hosts.js';
import { injectHeaders } from './policy-inject.js';

/**
 * Address guard settings from a policy file, for the egress engine. Omitted fields are left to
 * the engine's defaults; CIDRs are parsed to bytes.
 */
export interface GuardSettings {
  readonly mode: 'default' | 'allow-local' | 'strict';
  /** `undefined` = the engine's default protected ports. */
  readonly protectedPorts?: readonly number[];
  /** Blocks let through although private or local; `[]` = none. */
  readonly allowCidrs: readonly Cidr[];
  /** Extra blocks refused; `[]` = none. */
  readonly denyCidrs: readonly Cidr[];
}

export interface CompilePolicyOptions {
  /**
   * Where `{ "env": NAME }` header values are read from. Core is pure and never reads the
   * process environment itself: pass `process.env` explicitly. Default `{}`.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

function cidrs(list: readonly string[] | undefined): readonly Cidr[] {
  // Already validated by the schema.
  return Object.freeze((list ?? []).map((text) => parseCidr(text) as Cidr));
}

/**
 * Compiles a validated policy file into one `EgressPolicy` and the guard settings. The policy is
 * `chain(deny lists, allow gates, header injection)`: a deny entry always wins, an allow entry
 * grants, and anything else is denied. Sections that are omitted allow nothing.
 *
 * An `{ "env": NAME }` header whose variable is unset or empty throws `POLICY_SECRET_MISSING`
 * (every missing one listed). Header values are secrets and never appear in errors.
 *
 * @example
 * const { policy } = compilePolicy(parsePolicyFile({
 *   v: 1,
 *   http: {
 *     allow: ['api.github.com'],
 *     inject: [{ hosts: ['api.github.com'], headers: { authorization: { env: 'GH_AUTH' } } }],
 *   },
 * }), { env: process.env });
 */
export function compilePolicy(
  file: PolicyFile,
  options: CompilePolicyOptions = {},
): { policy: EgressPolicy; guard: GuardSettings | undefined } {
  const env = options.env ?? {};
  const name = file.name ?? 'policy-file';
  const filters: EgressPolicy[] = [];
  const gates: EgressPolicy[] = [];
  const injects: EgressPolicy[] = [];
  const missing: Problem[] = [];

  if (file.http) {
    if (file.http.deny?.length)
      filters.push(denyHosts(file.http.deny, { name: `${name}:http.deny`, tcp: false, udp: false }));
    gates.push(allowHosts(file.http.allow, { name: `${name}:http.allow`, methods: file.http.methods }));
    file.http.inject?.forEach((rule, i) => {
      const headers: Record<string, string> = {};
      for (const [header, value] of Object.entries(rule.headers)) {
        if (typeof value === 'string') {
          headers[header] = value;
          continue;
        }
        const resolved = env[value.env];
        if (resolved === undefined || resolved === '') {
          missing.push({
            code: 'POLICY_SECRET_MISSING',
            path: `http.inject[${i}].headers.${header}`,
            message: `header "${header}" takes its value from environment variable ${value.env}, which is not set`,
            hint: `set ${value.env} in the host environment before loading the policy`,
            severity: 'error',
          });
        } else {
          headers[header] = resolved;
        }
      }
      injects.push(injectHeaders(rule.hosts, headers, { name: `${name}:http.inject[${i}]` }));
    });
  }
  for (const kind of ['tcp', 'udp'] as const) {
    const section = file[kind];
    if (!section) continue;
    if (section.deny?.length) {
      filters.push(
        denyHosts(section.deny, {
          name: `${name}:${kind}.deny`,
          http: false,
          tcp: kind === 'tcp',
          udp: kind === 'udp',
        }),
      );
    }
    gates.push(allowHosts(section.allow, { name: `${name}:${kind}.allow`, http: false, [kind]: true }));
  }
  if (missing.length > 0) {
    throw new TrustError(
      'POLICY_SECRET_MISSING',
      `policy ${name}: ${missing.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      {
        problems: missing,
        hint: missing[0]?.hint,
      },
    );
  }

  const guard: GuardSettings | undefined = file.guard
    ? Object.freeze({
        mode: file.guard.mode ?? 'default',
        ...(file.guard.protectedPorts ? { protectedPorts: Object.freeze([...file.guard.protectedPorts]) } : {}),
        allowCidrs: cidrs(file.guard.allowCidrs),
        denyCidrs: cidrs(file.guard.denyCidrs),
      })
    : undefined;
  const compiled = chain(...filters, ...gates, ...injects);
  return { policy: Object.freeze({ ...compiled, name }), guard };
}
