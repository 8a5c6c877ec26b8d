import {
  allow,
  cidrContains,
  deny,
  parseIp,
  type Allow,
  type Deny,
  type EgressErrorCode,
  type IpAddress,
} from '@trust/core';
import { classifyAddress, embeddedIpv4s, type AddressClass, type AddressKind } from './address-class.js';
import type { CompiledGuardOptions } from './guard-options.js';
import { hostPort } from './target.js';

/** The guard's verdict on one address and port. */
export type AddressVerdict = (Allow | Deny) & { readonly address: AddressClass };

const HARD: Partial<Record<AddressKind, { code: EgressErrorCode; rule: string }>> = {
  unspecified: { code: 'EGRESS_UNSPECIFIED', rule: 'block-unspecified' },
  'link-local': { code: 'EGRESS_LINK_LOCAL', rule: 'block-link-local' },
  metadata: { code: 'EGRESS_METADATA', rule: 'block-metadata' },
  multicast: { code: 'EGRESS_MULTICAST', rule: 'block-multicast' },
  broadcast: { code: 'EGRESS_BROADCAST', rule: 'block-broadcast' },
};

function describe(c: AddressClass): string {
  if (c.via === undefined) return c.label;
  return `${c.label} (${c.via} form of ${c.embedded})`;
}

function single(c: AddressClass): string {
  return c.ip.includes(':') ? `${c.ip}/128` : `${c.ip}/32`;
}

/**
 * Judges one address on one port, in a fixed order that fails closed:
 * 1. always blocked: unspecified, link-local, metadata, multicast, broadcast (no override);
 * 2. a protected port on any non-public address;
 * 3. operator `denyCidrs` (on the address or any IPv4 address embedded in it);
 * 4. operator `allowCidrs` (on the address; for IPv4-embedding forms, on every embedded IPv4);
 * 5. the mode: loopback (blocked in strict), private and CGNAT (allowed in allow-local),
 *    ULA and reserved (blocked), public (allowed).
 */
export function judgeAddress(options: CompiledGuardOptions, address: string | IpAddress, port: number): AddressVerdict {
  const ip = typeof address === 'string' ? parseIp(address) : address;
  const c = ip === undefined ? undefined : classifyAddress(ip);
  if (ip === undefined || c === undefined) {
    const bad: AddressClass = { kind: 'reserved', ip: String(address), label: 'not an IP address' };
    return {
      ...deny('EGRESS_DNS_FAILED', `egress denied: ${JSON.stringify(String(address))} is not an IP address`, {
        rule: 'address-syntax',
        hint: 'the resolver must return IP addresses',
      }),
      address: bad,
    };
  }
  const where = hostPort(c.ip, port);
  const no = (code: EgressErrorCode, rule: string, hint: string): AddressVerdict => ({
    ...deny(code, `egress denied: ${where} is ${describe(c)} (rule ${rule})`, { rule, hint }),
    address: c,
  });
  const yes = (rule: string): AddressVerdict => ({ ...allow(rule), address: c });

  const hard = HARD[c.kind];
  if (hard !== undefined) return no(hard.code, hard.rule, 'this class is blocked in every mode and cannot be allowed');
  if (c.kind !== 'public' && options.protectedPorts.has(port)) {
    return no(
      'EGRESS_PROTECTED_PORT',
      'protected-port',
      `port ${port} is protected on local addresses in every spelling; it cannot be allowed`,
    );
  }
  // Operator lists see the address and every IPv4 address embedded in it (NAT64, 6to4, SIIT,
  // IPv4-compatible, Teredo, mapped): a deny on either wins. An embedding form is judged by its
  // IPv4 addresses, so only entries covering all of them open it; the IPv6 wrapper alone never does.
  const inner = embeddedIpv4s(ip);
  const denied = options.denyCidrs.find((d) => cidrContains(d.cidr, ip) || inner.some((e) => cidrContains(d.cidr, e)));
  if (denied !== undefined)
    return no('EGRESS_DENIED_CIDR', `deny-cidr:${denied.text}`, `remove "${denied.text}" from denyCidrs to permit it`);
  const covering = (x: IpAddress) => options.allowCidrs.find((a) => cidrContains(a.cidr, x));
  const allowed =
    inner.length === 0
      ? covering(ip)
      : inner.every((e) => covering(e) !== undefined)
        ? covering(inner[0] as IpAddress)
        : undefined;
  if (allowed !== undefined) return yes(`allow-cidr:${allowed.text}`);

  const widen = `use mode 'allow-local' or add "${single(c)}" to allowCidrs to permit it`;
  switch (c.kind) {
    case 'public':
      return yes('public');
    case 'loopback':
      return options.mode === 'strict'
        ? no('EGRESS_LOOPBACK', 'block-loopback', `use mode 'default' or add "${single(c)}" to allowCidrs to permit it`)
        : yes('allow-loopback');
    case 'private':
      return options.mode === 'allow-local' ? yes('allow-local') : no('EGRESS_PRIVATE_ADDRESS', 'block-private', widen);
    case 'cgnat':
      return options.mode === 'allow-local' ? yes('allow-local') : no('EGRESS_PRIVATE_ADDRESS', 'block-cgnat', widen);
    case 'ula':
      return no('EGRESS_ULA', 'block-ula', `add "${single(c)}" (or its /48) to allowCidrs to permit it`);
    default:
      return no('EGRESS_RESERVED', 'block-reserved', `add "${single(c)}" to allowCidrs if this network really uses it`);
  }
}
