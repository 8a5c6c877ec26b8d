import { TrustError } from '@trust/core';
import {
  depthSort,
  fact,
  type LinuxOverlay,
  type LinuxPin,
  type LinuxPlan,
  type LinuxPlanContext,
} from './bwrap-plan.js';
import type { HostFacts } from './host-facts.js';
import type { SandboxPolicy } from './policy.js';
import { protectedEntriesOf } from './protected-paths.js';

/** What `planProtected` adds to a plan: placeholders, launcher pins, or bwrap options. */
export interface ProtectedPlan {
  readonly placeholders: { readonly path: string; readonly type: 'file' | 'dir' }[];
  readonly pins: LinuxPin[];
  readonly options: string[];
  readonly overlays: LinuxOverlay[];
}

/**
 * The read-only binds of the protected entries (built-in and the policy's `protectedPaths`) inside
 * every writable root, of `.git`, and of nested repositories' `.git`. Existing ones are bound over
 * themselves; missing ones get an empty read-only file or directory (a placeholder). With
 * `ctx.pinProtected` they become launcher pins, otherwise bwrap `--ro-bind` options. Pure.
 *
 * @example
 * const { pins, placeholders } = planProtected(policy, ctx, [{ mode: 'rw', path: '/srv/p' }]);
 */
export function planProtected(
  policy: SandboxPolicy,
  ctx: LinuxPlanContext,
  grants: readonly { readonly mode: 'ro' | 'rw'; readonly path: string }[],
): ProtectedPlan {
  const placeholders: ProtectedPlan['placeholders'] = [];
  const pins: LinuxPin[] = [];
  const options: string[] = [];
  // Roots whose missing names exist only in the run's overlay: no host placeholder there.
  const workBases = new Map(
    ctx.pinProtected && ctx.overlay ? ctx.overlay.roots.map((r) => [r.root, r.workBase] as const) : [],
  );
  const overlaid = new Set(workBases.keys());
  const readOnly = new Set(ctx.pinProtected ? (ctx.overlay?.readOnlyRoots ?? []) : []);
  // Parents first: each overlay's target is its root as seen through its parents' overlays.
  const overlays: LinuxOverlay[] = [...new Set([...overlaid, ...readOnly])]
    .sort(depthSort)
    .map((root) =>
      overlaid.has(root) && grants.some((g) => g.mode === 'rw' && g.path === root)
        ? { kind: 'rw', root, workBase: workBases.get(root)! }
        : { kind: 'ro', root },
    );
  const bindReadOnly = (kind: LinuxPin['kind'], path: string): void => {
    if (ctx.pinProtected) pins.push({ kind, path });
    else options.push('--ro-bind', kind === 'f' ? ctx.empty.file : kind === 'd' ? ctx.empty.dir : path, path);
  };
  // A protected path inside a deny entry is hidden already: binding it over itself would show it again.
  const denied = policy.capabilities.fsGrants.filter((g) => g.mode === 'none').map((g) => g.path);
  const hidden = (path: string) => denied.some((d) => path === d || path.startsWith(`${d}/`));
  const protect = (root: string, path: string, type: 'file' | 'dir'): void => {
    if (hidden(path)) return;
    const f = fact(ctx.facts, path);
    if (f.kind === 'symlink') {
      // A mount lands on the symlink's target and the link itself stays replaceable: refuse.
      throw new TrustError(
        'SANDBOX_PROTECTED_SYMLINK',
        `${path} is a symlink (to ${f.target}) inside a writable root and cannot be pinned read-only`,
        {
          hint:
            'replace the symlink with a regular file, or grant the ' +
            'directory read-only (fs:ro:...) instead of read-write',
        },
      );
    }
    if (f.kind === 'missing') {
      if (!overlaid.has(root)) placeholders.push({ path, type });
      bindReadOnly(type === 'file' ? 'f' : 'd', path);
    } else {
      bindReadOnly(f.kind === 'file' ? 'F' : f.kind === 'dir' ? 'D' : 's', path);
    }
  };
  const entries = protectedEntriesOf(policy);
  for (const g of grants) {
    if (g.mode !== 'rw') continue;
    // A protected path inside a nested read-only grant is already read-only.
    for (const e of entries) protect(g.path, `${g.path}/${e.name}`, e.type);
    const git = fact(ctx.facts, `${g.path}/.git`);
    // The whole .git is read-only: hooks and config are not the only ways to make the host run
    // code (commondir/worktrees redirects, info/, modules/*/hooks, objects/info/alternates), and
    // git's lock-then-rename writes cannot be allowed per file. Committing happens on the host.
    // Being a mount point also pins it against `mv .git x && mkdir -p .git/hooks`.
    if (hidden(`${g.path}/.git`)) continue;
    if (git.kind === 'dir') bindReadOnly('D', `${g.path}/.git`);
    else protect(g.path, `${g.path}/.git`, git.kind === 'missing' ? 'dir' : 'file');
  }
  // Repositories nested in writable roots that existed at spawn (found by a bounded scan).
  for (const nested of [...(ctx.nestedGit ?? [])].sort(depthSort)) {
    const f = fact(ctx.facts, nested);
    if (hidden(nested)) continue;
    if (f.kind === 'dir' || f.kind === 'file') bindReadOnly('s', nested);
  }
  return { placeholders, pins, options, overlays };
}

/**
 * The bwrap options that make each of the policy's `unixSockets` reachable at its own path (a
 * read-only bind of the socket inode). Each must be a unix socket on the host now, not a symlink:
 * `SANDBOX_UNIX_SOCKET_INVALID` otherwise.
 *
 * @example
 * planUnixSockets(policy, facts); // ['--ro-bind', '/run/app.sock', '/run/app.sock']
 */
export function planUnixSockets(policy: SandboxPolicy, facts: HostFacts): string[] {
  return policy.unixSockets.flatMap((path) => {
    const f = fact(facts, path);
    if (f.kind !== 'socket') {
      const is = f.kind === 'symlink' ? `a symlink (to ${f.target})` : f.kind === 'missing' ? 'missing' : `a ${f.kind}`;
      throw new TrustError(
        'SANDBOX_UNIX_SOCKET_INVALID',
        `unixSockets names ${path}, which is ${is}, not a unix socket`,
        {
          hint: 'name the real path of a listening unix socket (start its server first), or remove it from unixSockets',
        },
      );
    }
    return ['--ro-bind', path, path];
  });
}

/**
 * The launcher arguments for a plan's overlays and the named sockets bound back over them.
 *
 * @example
 * overlayArgs(plan); // ['--pin-overlay', '/srv/p', '/tmp/w', '--pin-overlay-ro', '/opt/data', ...]
 */
export function overlayArgs(plan: Pick<LinuxPlan, 'overlays' | 'socketPins'>): string[] {
  return [
    ...plan.overlays.flatMap((o) =>
      o.kind === 'rw' ? ['--pin-overlay', o.root, o.workBase] : ['--pin-overlay-ro', o.root],
    ),
    ...plan.socketPins.flatMap((s) => ['--pin-socket', s]),
  ];
}
