import type { CapabilityName } from './capability-name.js';
import type { Decision } from './decision.js';
import type { Problem } from './error.js';

/**
 * One parsed capability. `env` and `fs` carry their argument; every other kind is a bare name.
 * `fs.path` is absolute and normalised (no `.`/`..`, no repeated or trailing slash).
 */
export type Capability =
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'fs'; readonly mode: FsMode; readonly path: string }
  | { readonly kind: Exclude<CapabilityName, 'env' | 'fs'> };

/**
 * The mode of one fs entry: `ro` and `rw` grant a directory, `none` is a deny entry that hides a
 * path (a directory or a file) inside a grant. The most specific entry covering a path wins.
 */
export type FsMode = 'ro' | 'rw' | 'none';

/** One fs entry of a set: a directory grant (`ro`/`rw`) or a deny entry (`none`). */
export interface FsGrantEntry {
  readonly mode: FsMode;
  readonly path: string;
}

/** The answer to `CapabilitySet.fsGrant(path)`: the access and the grant root that gave it. */
export interface FsAccess {
  readonly access: 'none' | 'ro' | 'rw';
  readonly root?: string;
}

/**
 * How a set reaches the network: not at all, through the egress broker, or coarsely (any public host, address floor
 * only).
 */
export type EgressTier = 'none' | 'brokered' | 'coarse';

/**
 * A compiled, frozen set of capabilities (see `parseCapabilities`). An empty set grants nothing.
 */
export interface CapabilitySet {
  /** The distinct capabilities, in the order first given. */
  readonly entries: readonly Capability[];
  /** Non-fatal findings, such as duplicates (`CAPABILITY_DUPLICATE`). */
  readonly warnings: readonly Problem[];
  /** The granted environment variable names, in order. */
  readonly envNames: readonly string[];
  /**
   * The fs entries, in order: granted directories (`ro`/`rw`) and deny entries (`none`). A backend
   * must honour `none` (hide the path) or refuse the set.
   */
  readonly fsGrants: readonly FsGrantEntry[];
  /** True when the set holds a capability of this kind (`has('env')` is true for any `env:NAME`). */
  has(kind: CapabilityName): boolean;
  /** Allows reading env var `name` only when `env:name` was granted (exact, case-sensitive). */
  allowsEnv(name: string): Decision;
  /**
   * The access to an absolute path. The query is normalised purely (`.`, `..`, repeated and
   * trailing slashes); a relative query is `none`. The longest entry that contains the path on a
   * segment boundary wins (`/data` does not grant `/database`), so `fs:ro:/a` with `fs:rw:/a/b`
   * makes `/a/b/x` writable, and a deny entry `fs:none:/a/b/s` makes `/a/b/s/x` `none` (with `root`
   * set to the deny entry).
   */
  fsGrant(path: string): FsAccess;
  /** `coarse` with `network`/`sockets`, else `brokered` with `http`/`tcp`/`udp`, else `none`. */
  egressTier(): EgressTier;
  /** The canonical strings of the set, in order; `parseCapabilities(set.toStrings())` round-trips. */
  toStrings(): string[];
  /** The intersection of two sets: what both grant. */
  narrow(other: CapabilitySet): CapabilitySet;
}

/**
 * Every capability name, in the order the documentation lists them.
 *
 * @example
 * CAPABILITY_NAMES.includes('http'); // true
 */
export const CAPABILITY_NAMES: readonly CapabilityName[] = Object.freeze([
  'env',
  'fs',
  'args',
  'stdin',
  'stdout',
  'stderr',
  'http',
  'tcp',
  'udp',
  'network',
  'sockets',
  'clocks',
  'random',
]);

/**
 * A one-line risk note per capability, for inspectors and prompts.
 *
 * @example
 * CAPABILITY_RISKS.network; // 'may reach any public host (coarse: no per-host policy, only an address floor applies)'
 */
export const CAPABILITY_RISKS: Readonly<Record<CapabilityName, string>> = Object.freeze({
  env: 'may read the named host environment variable, which may hold a secret',
  fs: 'may read (ro) or also write (rw) every file below the granted directory (a nested entry overrides)',
  args: 'may read the process arguments, which may contain secrets passed on a command line',
  stdin: 'may read the host standard input',
  stdout: 'may write to the host standard output, which a terminal or log shows',
  stderr: 'may write to the host standard error, which a terminal or log shows',
  http: 'may send HTTP requests to the hosts the egress policy allows',
  tcp: 'may open TCP connections to the peers the egress policy allows',
  udp: 'may send UDP datagrams to the peers the egress policy allows',
  network: 'may reach any public host (coarse: no per-host policy, only an address floor applies)',
  sockets: 'may reach any public host (coarse: no per-host policy, only an address floor applies)',
  clocks: 'may read wall and monotonic clocks (always available; low risk)',
  random: 'may read secure randomness (always available; low risk)',
});

/**
 * The canonical string of one capability.
 *
 * @example
 * formatCapability({ kind: 'fs', mode: 'ro', path: '/etc/certs' }); // 'fs:ro:/etc/certs'
 */
export function formatCapability(cap: Capability): string {
  if (cap.kind === 'env') return `env:${cap.name}`;
  if (cap.kind === 'fs') return `fs:${cap.mode}:${cap.path}`;
  return cap.kind;
}
