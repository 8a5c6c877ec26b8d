import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The user data directory of trust: `$TRUST_HOME` when set, otherwise `~/.trust`. It holds the
 * demo workspace, the sandbox launcher cache and keys the user creates there.
 *
 * @example
 * trustHome({ TRUST_HOME: '/srv/trust' }); // '/srv/trust'
 */
export function trustHome(env: Readonly<Record<string, string | undefined>>): string {
  if (env.TRUST_HOME) return resolve(env.TRUST_HOME);
  return join(env.HOME || homedir(), '.trust');
}
