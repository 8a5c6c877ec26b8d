import type { CapabilitySet } from '@trust/core';
import { wasmError } from './errors.js';
import type { RootMode } from './fs/grant-roots.js';

/** One directory the guest sees, at the same path as on the host, pinned by descriptor at load. */
export interface PreopenPlan {
  readonly guestPath: string;
  readonly hostPath: string;
  readonly mode: 'ro' | 'rw';
  /** The host's descriptor of the directory, opened at load (`pinGrantDirs`). */
  readonly fd: number;
}

/**
 * The WASI import object of one plugin instance, as data: what `buildWasiImports` will create.
 * Pure and serialisable (it crosses into the plugin's worker thread); snapshot-testable.
 */
export interface ImportPlan {
  readonly pluginId: string;
  /** Exactly the granted variables that are set on the host, in grant order. */
  readonly env: readonly (readonly [string, string])[];
  /** The manifest's `args`, only with the `args` capability; otherwise `[]`. */
  readonly args: readonly string[];
  readonly preopens: readonly PreopenPlan[];
  /**
   * The nested fs entries by identity (`"<dev>:<ino>"`, mode), from `pinGrantDirs(...).roots`: a
   * path reached through an outer preopen takes the rights of the innermost entry it passes.
   * `[]` when no entry lies inside another.
   */
  readonly fsRoots: readonly (readonly [string, RootMode])[];
  /** `capture` hands output to the host (labelled with the plugin id); `discard` drops it. */
  readonly stdout: 'capture' | 'discard';
  readonly stderr: 'capture' | 'discard';
  /** Always closed: plugins never read the host's stdin. */
  readonly stdin: 'closed';
  readonly http: boolean;
  readonly tcp: boolean;
  readonly udp: boolean;
  /** `network`/`sockets`: raw TCP through egress with only the address floor. */
  readonly coarse: boolean;
}

/**
 * Turns a capability set into an import plan. `hostEnv` is read only for granted names.
 * `pinnedDirs` holds the descriptor the host opened for each fs grant (`pinGrantDirs`); a grant
 * without one is an error unless it is in `skippedDirs` (missing at load: no preopen), never
 * resolved by path later. Each `ro`/`rw` grant is its own preopen; deny entries are none.
 *
 * @example
 * planImports({ pluginId: 'p1', caps: parseCapabilities(['env:A']), hostEnv: { A: '1', B: '2' } }).env; // [['A', '1']]
 */
export function planImports(input: {
  pluginId: string;
  caps: CapabilitySet;
  hostEnv: Readonly<Record<string, string | undefined>>;
  args?: readonly string[];
  pinnedDirs?: readonly { readonly path: string; readonly fd: number }[];
  skippedDirs?: readonly { readonly path: string }[];
  fsRoots?: ReadonlyMap<string, RootMode>;
  brokeredNetwork: boolean;
}): ImportPlan {
  const { caps } = input;
  const env: [string, string][] = [];
  for (const name of caps.envNames) {
    const value = input.hostEnv[name];
    if (value !== undefined) env.push([name, value]);
  }
  const preopens: PreopenPlan[] = [];
  for (const g of caps.fsGrants) {
    const pinned = input.pinnedDirs?.find((d) => d.path === g.path);
    if (!pinned && input.skippedDirs?.some((d) => d.path === g.path)) continue;
    if (!pinned)
      throw wasmError('WASM_FS_GRANT_INVALID', `fs grant ${g.path} was not opened at load`, {
        hint: 'pin every granted directory with pinGrantDirs before planning imports',
      });
    if (g.mode !== 'none') preopens.push({ guestPath: g.path, hostPath: g.path, mode: g.mode, fd: pinned.fd });
  }
  const net = input.brokeredNetwork;
  return Object.freeze({
    pluginId: input.pluginId,
    env,
    args: caps.has('args') ? [...(input.args ?? [])] : [],
    preopens,
    fsRoots: [...(input.fsRoots ?? [])],
    stdout: caps.has('stdout') ? 'capture' : 'discard',
    stderr: caps.has('stderr') ? 'capture' : 'discard',
    stdin: 'closed',
    http: net && caps.has('http'),
    tcp: net && caps.has('tcp'),
    udp: net && caps.has('udp'),
    coarse: net && (caps.has('network') || caps.has('sockets')),
  });
}
