import type { CapabilityName, CapabilitySet } from '@trust/core';

/** Whether the granted capabilities satisfy one component import. */
export interface ImportCheck {
  /** The import as the component names it, e.g. `wasi:http/outgoing-handler@0.2.12`. */
  readonly import: string;
  readonly satisfied: boolean;
  /**
   * `always` (WASI present, zero grants), `deny-all` (linked, but every call fails as denied: no
   * capability grants it), or the capability that provides it.
   */
  readonly providedBy?: string;
  readonly reason?: string;
  readonly hint?: string;
}

/** Imports that are always present: the guest gets them, backed by a context that grants nothing. */
const ALWAYS = [
  /^wasi:cli\/(environment|exit|stdin|stdout|stderr)$/,
  /^wasi:cli\/(terminal-input|terminal-output|terminal-stdin|terminal-stdout|terminal-stderr)$/,
  /^wasi:clocks\/(monotonic-clock|wall-clock|timezone)$/,
  /^wasi:random\/(random|insecure|insecure-seed)$/,
  /^wasi:io\/(error|poll|streams)$/,
  /^wasi:filesystem\/(types|preopens)$/,
  /^wasi:http\/types$/,
];

const SOCKET_NEEDS: Record<string, readonly CapabilityName[]> = {
  'wasi:sockets/network': ['tcp', 'udp', 'network', 'sockets'],
  'wasi:sockets/instance-network': ['tcp', 'udp', 'network', 'sockets'],
  'wasi:sockets/tcp': ['tcp', 'network', 'sockets'],
  'wasi:sockets/tcp-create-socket': ['tcp', 'network', 'sockets'],
  'wasi:sockets/udp': ['udp', 'network', 'sockets'],
  'wasi:sockets/udp-create-socket': ['udp', 'network', 'sockets'],
  'wasi:sockets/ip-name-lookup': ['tcp', 'udp', 'network', 'sockets'],
};

/** Splits `wasi:cli/environment@0.2.12` into the unversioned name and the version. */
export function splitImport(name: string): { base: string; version: string | undefined } {
  const at = name.lastIndexOf('@');
  return at > 0 ? { base: name.slice(0, at), version: name.slice(at + 1) } : { base: name, version: undefined };
}

/**
 * Checks each import of a component against the granted capabilities. WASI present, zero grants:
 * every WASI 0.2 interface trust implements links, and one no capability grants
 * (`wasi:http/outgoing-handler` without `http`, `wasi:sockets/*` without a network capability)
 * links against a deny-all implementation (`providedBy: 'deny-all'`): standard toolchains import
 * interfaces a plugin never calls, and a call fails as denied. Unsatisfied, and so refused at load:
 * an interface trust does not implement (a custom host interface, a WASI version other than
 * 0.2.x), and a network grant that cannot work because the host has no egress policy (two keys).
 *
 * @example
 * checkImports(['wasi:http/outgoing-handler@0.2.12'], parseCapabilities(['http']), false)[0].satisfied; // false
 * checkImports(['wasi:sockets/tcp@0.2.12'], parseCapabilities([]), false)[0].providedBy; // 'deny-all'
 */
export function checkImports(imports: readonly string[], caps: CapabilitySet, hasEgressPolicy: boolean): ImportCheck[] {
  return imports.map((name): ImportCheck => {
    const { base, version } = splitImport(name);
    if (base.startsWith('wasi:') && version !== undefined && !/^0\.2\.\d+$/.test(version)) {
      return {
        import: name,
        satisfied: false,
        reason: `WASI ${version} is not supported by this host (it provides 0.2.x)`,
        hint: 'rebuild the plugin against WASI 0.2',
      };
    }
    if (ALWAYS.some((re) => re.test(base))) return { import: name, satisfied: true, providedBy: 'always' };
    if (base === 'wasi:http/outgoing-handler') {
      if (!caps.has('http')) return { import: name, satisfied: true, providedBy: 'deny-all' };
      if (!hasEgressPolicy)
        return {
          import: name,
          satisfied: false,
          reason: '"http" is granted but the host has no egress policy (two keys are required)',
          hint: 'pass egress: <EgressPolicy> to createPluginHost() or host.load()',
        };
      return { import: name, satisfied: true, providedBy: 'http' };
    }
    const needs = SOCKET_NEEDS[base];
    if (needs) {
      const by = needs.find((c) => caps.has(c));
      if (!by) return { import: name, satisfied: true, providedBy: 'deny-all' };
      if ((by === 'tcp' || by === 'udp') && !hasEgressPolicy) {
        return {
          import: name,
          satisfied: false,
          reason: `"${by}" is granted but the host has no egress policy (two keys are required)`,
          hint: 'pass egress: <EgressPolicy> to createPluginHost() or host.load()',
        };
      }
      return { import: name, satisfied: true, providedBy: by };
    }
    return {
      import: name,
      satisfied: false,
      reason: `nothing on this host provides ${name}`,
      hint: 'the host provides WASI 0.2 only; remove the import or provide it',
    };
  });
}
