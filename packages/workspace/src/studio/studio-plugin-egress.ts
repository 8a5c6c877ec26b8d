import { readFile } from 'node:fs/promises';
import type { EgressPolicy } from '@trust/core';
import type { GuardOptions } from '@trust/egress';
import type { PluginEgressView } from '../control/index.js';

/** The workspace file holding the owner's egress policy for studio-loaded plugins (core format `v: 1`). */
export const PLUGIN_EGRESS_POLICY_FILE = 'egress-policy.json';

/** Grants that reach the network: each needs the owner's policy. */
const NETWORK_GRANTS = ['http', 'tcp', 'udp', 'network', 'sockets'] as const;
/** Largest policy file read, in bytes (a policy is a few lines). */
export const MAX_POLICY_BYTES = 256 * 1024;

/** A compiled workspace policy: what egress runs, the guard it asks for, and what the studio shows of it. */
export interface PluginEgress {
  readonly policy: EgressPolicy;
  readonly guard: GuardOptions;
  readonly view: PluginEgressView;
}

type Core = typeof import('@trust/core');

/**
 * Reads and compiles the workspace's plugin egress policy with core's validator (`parsePolicyText`,
 * `compilePolicy`: the schema `trust egress check --policy` uses), then checks the network grants of a
 * load against it. Read at each load, so an edited file applies to the next load, never to a plugin
 * already running (it keeps the compiled policy it was loaded with). Fails closed:
 * - a network grant and no file: `STUDIO_PLUGIN_EGRESS_POLICY_MISSING`, saying where to put one;
 * - a file the validator refuses (or a missing `{ "env": NAME }` secret): `STUDIO_PLUGIN_EGRESS_POLICY_INVALID`;
 * - a grant wider than the policy: `STUDIO_PLUGIN_GRANT_WIDER_THAN_POLICY`, refused, never narrowed
 *   (`network`/`sockets` reach any destination the address floor allows, past every policy rule;
 *   `http`/`tcp`/`udp` need the policy's section of that name).
 * Returns `undefined` when the grants reach no network (the file is then not read).
 *
 * @example
 * const egress = await pluginEgressFor(['http'], '/ws/egress-policy.json', process.env);
 */
export async function pluginEgressFor(
  grants: readonly string[],
  file: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<PluginEgress | undefined> {
  const core: Core = await import('@trust/core');
  const net = NETWORK_GRANTS.filter((g) => grants.includes(g));
  if (net.length === 0) return undefined;
  const text = file === undefined ? undefined : await readPolicy(core, file);
  if (text === undefined || file === undefined)
    throw new core.TrustError(
      'STUDIO_PLUGIN_EGRESS_POLICY_MISSING',
      `the grants ${net.join(', ')} reach the network, and the workspace has no egress policy for plugins`,
      {
        hint:
          `write the policy to ${file ?? `<workspace>/${PLUGIN_EGRESS_POLICY_FILE}`}, e.g. ` +
          '{"v":1,"http":{"allow":["api.example.com"]}} (check it in the Policy view first), or load without them',
      },
    );
  let parsed: ReturnType<Core['parsePolicyText']>;
  let compiled: ReturnType<Core['compilePolicy']>;
  try {
    parsed = core.parsePolicyText(text);
    compiled = core.compilePolicy(parsed, { env });
  } catch (e) {
    if (!core.isTrustError(e)) throw e;
    throw new core.TrustError(
      'STUDIO_PLUGIN_EGRESS_POLICY_INVALID',
      `the plugin egress policy ${file} is refused by the policy validator: ${e.message}`,
      { hint: e.hint ?? 'paste it into the Policy view: each problem is shown in place', problems: e.problems ?? [] },
    );
  }
  const wider = net.filter((g) => g === 'network' || g === 'sockets' || parsed[g] === undefined);
  if (wider.length > 0)
    throw new core.TrustError(
      'STUDIO_PLUGIN_GRANT_WIDER_THAN_POLICY',
      `the grants ${wider.join(', ')} are wider than the plugin egress policy ${file}: ` +
        wider
          .map((g) =>
            g === 'network' || g === 'sockets'
              ? `${g} reaches any destination the address floor allows, past every rule of the policy`
              : `the policy has no "${g}" section, so it allows no ${g} destination`,
          )
          .join('; '),
      {
        hint:
          'grant http, tcp or udp instead of network/sockets, and list the destinations in the section of that ' +
          `name in ${file}`,
      },
    );
  const g = compiled.guard;
  const guard = g
    ? {
        mode: g.mode,
        ...(g.protectedPorts ? { protectedPorts: [...g.protectedPorts] } : {}),
        allowCidrs: g.allowCidrs.map((c) => core.formatCidr(c)),
        denyCidrs: g.denyCidrs.map((c) => core.formatCidr(c)),
      }
    : {};
  return {
    policy: compiled.policy,
    guard,
    view: { file, ...(parsed.name === undefined ? {} : { name: parsed.name }), rules: rulesOf(parsed) },
  };
}

/** The file's text; `undefined` when it does not exist. Any other failure is refused (fail closed). */
async function readPolicy(core: Core, file: string): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ENOENT') return undefined;
    throw new core.TrustError(
      'STUDIO_PLUGIN_EGRESS_POLICY_INVALID',
      `cannot read the plugin egress policy ${file} (${code ?? 'error'})`,
      { hint: 'make it a readable file (JSON, format v: 1)' },
    );
  }
  if (bytes.length > MAX_POLICY_BYTES)
    throw new core.TrustError(
      'STUDIO_PLUGIN_EGRESS_POLICY_INVALID',
      `the plugin egress policy ${file} is ${bytes.length} bytes, more than the ${MAX_POLICY_BYTES} read`,
      { hint: 'a policy lists hosts; keep it short' },
    );
  return bytes.toString('utf8');
}

/**
 * The policy's rules as `section → value` rows (`http.allow`, `http.inject.0`, `guard`), the paths
 * a denial's rule names. Literal header values are secrets: only their names and `{ env }` sources are kept.
 */
function rulesOf(file: Record<string, unknown>): { path: string; value: string }[] {
  const rows: { path: string; value: string }[] = [];
  for (const section of ['http', 'tcp', 'udp', 'guard'] as const) {
    const v = file[section];
    if (v === undefined) continue;
    if (section === 'guard' || typeof v !== 'object' || v === null) {
      rows.push({ path: section, value: JSON.stringify(v) });
      continue;
    }
    for (const [key, val] of Object.entries(v as Record<string, unknown>)) {
      if (key === 'inject' && Array.isArray(val))
        val.forEach((rule: { hosts?: unknown; headers?: Record<string, unknown> }, i) => {
          const headers = Object.fromEntries(
            Object.entries(rule.headers ?? {}).map(([h, x]) => [h, typeof x === 'string' ? '(literal, hidden)' : x]),
          );
          rows.push({ path: `${section}.inject.${i}`, value: JSON.stringify({ hosts: rule.hosts, headers }) });
        });
      else rows.push({ path: `${section}.${key}`, value: JSON.stringify(val) });
    }
  }
  return rows;
}
