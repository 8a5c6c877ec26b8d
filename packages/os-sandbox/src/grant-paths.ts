import { realpathSync } from 'node:fs';
import { allow, deny, type Decision } from '@trust/core';
import type { SandboxPolicy } from './policy.js';
import { SENSITIVE_ROOTS } from './protected-paths.js';

const within = (root: string, path: string): boolean => root === '/' || path === root || path.startsWith(`${root}/`);

/**
 * Checks that every filesystem grant names its real path. A bind mount follows symlinks, so a
 * grant whose path (or an ancestor) is a symlink would expose the link's target, and a link
 * planted by an earlier run (`ln -s /root/x $ws/cache`) would redirect a later `fs:rw:$ws/cache`.
 * Such grants are denied with `SANDBOX_GRANT_SYMLINK`; the reason says when the target lies
 * under a sensitive root (/root, /home, /run, /var/run, the host $HOME). A grant that does not
 * exist is denied with `SANDBOX_GRANT_MISSING` (naming it), so that nothing starts; a deny entry
 * (`fs:none`) that does not exist is fine (there is nothing to hide). Linux only:
 * seatbelt matches real paths itself.
 *
 * @example
 * evaluateGrantRealPaths(policy, process.env.HOME); // { allow: true, rule: 'grant-real-paths' }
 */
export function evaluateGrantRealPaths(
  policy: SandboxPolicy,
  home?: string,
  realpath: (p: string) => string = realpathSync,
): Decision {
  const sensitive = [...SENSITIVE_ROOTS, ...(home ? [home] : [])];
  for (const g of policy.capabilities.fsGrants) {
    let real: string;
    try {
      real = realpath(g.path);
    } catch (err) {
      // A missing grant would only make bubblewrap fail after the run started (exit 125, launcher
      // noise): refused before anything starts, naming it.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') continue;
      // a deny entry with nothing at its path hides nothing at spawn: the plan leaves it out
      if (g.mode === 'none') continue;
      return deny('SANDBOX_GRANT_MISSING', `the grant fs:${g.mode}:${g.path} names a path that does not exist`, {
        rule: 'grant-exists',
        hint: `create it first (mkdir -p ${g.path}), or remove "fs:${g.mode}:${g.path}" from the capabilities`,
      });
    }
    if (real === g.path) continue;
    const hit = sensitive.find((s) => within(s, real) && !within(s, g.path));
    return deny(
      'SANDBOX_GRANT_SYMLINK',
      `the grant fs:${g.mode}:${g.path} resolves through a symlink ` +
        `to ${real}${hit ? `, inside the sensitive root ${hit}` : ''}; a mount would expose ` +
        `the target`,
      {
        rule: 'grant-real-path',
        hint: `grant the real path (fs:${g.mode}:${real}) if that is intended, or remove the symlink at ${g.path}`,
      },
    );
  }
  return allow('grant-real-paths');
}
