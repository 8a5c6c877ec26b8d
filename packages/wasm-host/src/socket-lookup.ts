import type { BridgeLookupResult } from './net-protocol.js';

/**
 * `wasi:sockets/ip-name-lookup` for one instance: names resolve through the egress guard (its
 * resolver and address floor), which never hands out a blocked address. `allowed` is false when
 * the plugin has neither tcp nor udp: every lookup is then `access-denied`.
 */
export function createNameLookup(
  ready: () => unknown,
  allowed: boolean,
  call: (op: string, payload: unknown) => BridgeLookupResult,
) {
  /** Addresses the egress guard let through for one name, handed out one at a time. */
  class ResolveAddressStream {
    addresses: { tag: 'ipv4' | 'ipv6'; val: number[] }[];
    error: string | undefined;
    constructor(addresses: { tag: 'ipv4' | 'ipv6'; val: number[] }[], error: string | undefined) {
      this.addresses = addresses;
      this.error = error;
    }
    resolveNextAddress(): { tag: 'ipv4' | 'ipv6'; val: number[] } | undefined {
      if (this.error) {
        const e = this.error;
        this.error = undefined;
        throw e;
      }
      return this.addresses.shift();
    }
    subscribe() {
      return ready();
    }
  }

  return {
    ResolveAddressStream,
    resolveAddresses(_network: unknown, name: string) {
      if (!allowed) throw 'access-denied';
      if (typeof name !== 'string' || name.length === 0 || name.length > 253) throw 'invalid-argument';
      const r = call('dns.lookup', { name });
      if (r.kind === 'error') return new ResolveAddressStream([], r.error);
      const addresses = r.addresses.map((a) => ({ tag: a.tag, val: [...a.val] }));
      return new ResolveAddressStream(addresses, addresses.length === 0 ? 'name-unresolvable' : undefined);
    },
  };
}
