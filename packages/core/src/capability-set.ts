import type { CapabilityName } from './capability-name.js';
import {
  formatCapability,
  type Capability,
  type CapabilitySet,
  type EgressTier,
  type FsAccess,
  type FsGrantEntry,
} from './capability.js';
import { allow, deny, type Decision } from './decision.js';
import type { Problem } from './error.js';
import { isPathWithin, normalizeAbsolutePath } from './path.js';

const RANK = { none: 0, ro: 1, rw: 2 } as const;

function lookupFs(grants: readonly FsGrantEntry[], path: string): FsAccess {
  const query = normalizeAbsolutePath(path);
  if (query === undefined) return { access: 'none' };
  let best: FsGrantEntry | undefined;
  for (const grant of grants) {
    if (!isPathWithin(grant.path, query)) continue;
    // one entry per path (the parser refuses two modes), so the longest is the most specific
    if (!best || grant.path.length > best.path.length) best = grant;
  }
  return best ? { access: best.mode, root: best.path } : { access: 'none' };
}

/**
 * Builds the frozen set from already validated, distinct capabilities. Internal: callers use
 * `parseCapabilities`, which validates first.
 */
export function createCapabilitySet(entries: readonly Capability[], warnings: readonly Problem[] = []): CapabilitySet {
  const frozenEntries = Object.freeze(entries.map((e) => Object.freeze({ ...e })));
  const kinds = new Set<CapabilityName>(frozenEntries.map((e) => e.kind));
  const envNames = Object.freeze(frozenEntries.flatMap((e) => (e.kind === 'env' ? [e.name] : [])));
  const envSet = new Set(envNames);
  const fsGrants: readonly FsGrantEntry[] = Object.freeze(
    frozenEntries.flatMap((e) => (e.kind === 'fs' ? [Object.freeze({ mode: e.mode, path: e.path })] : [])),
  );

  const set: CapabilitySet = {
    entries: frozenEntries,
    warnings: Object.freeze([...warnings]),
    envNames,
    fsGrants,
    has: (kind) => kinds.has(kind),
    allowsEnv(name: string): Decision {
      if (envSet.has(name)) return allow(`env:${name}`);
      return deny('CAPABILITY_ENV_NOT_GRANTED', `environment variable ${JSON.stringify(name)} is not granted`, {
        hint: `add "env:${name}" to the capabilities to grant it`,
      });
    },
    fsGrant: (path) => lookupFs(fsGrants, path),
    egressTier(): EgressTier {
      if (kinds.has('network') || kinds.has('sockets')) return 'coarse';
      if (kinds.has('http') || kinds.has('tcp') || kinds.has('udp')) return 'brokered';
      return 'none';
    },
    toStrings: () => frozenEntries.map(formatCapability),
    narrow(other: CapabilitySet): CapabilitySet {
      const otherStrings = new Set(other.toStrings());
      const kept: Capability[] = frozenEntries.filter((e) => e.kind !== 'fs' && otherStrings.has(formatCapability(e)));
      // The intersection of two longest-prefix maps is fixed by the union of their roots: at each
      // root take the weaker access of the two sets. A root where the intersection grants nothing
      // is kept as a deny entry when a kept grant above it would otherwise cover it.
      const seen = new Set<string>();
      const roots = [...fsGrants, ...other.fsGrants].map((g) => g.path).sort((x, y) => x.length - y.length);
      const fs: FsGrantEntry[] = [];
      for (const root of roots) {
        if (seen.has(root)) continue;
        seen.add(root);
        const a = lookupFs(fsGrants, root).access;
        const b = other.fsGrant(root).access;
        const access = RANK[a] < RANK[b] ? a : b;
        const above = lookupFs(fs, root).access;
        if (access === above) continue; // already what the entries above say
        fs.push({ mode: access, path: root });
      }
      for (const g of fs) kept.push({ kind: 'fs', mode: g.mode, path: g.path });
      return createCapabilitySet(kept);
    },
  };
  return Object.freeze(set);
}
