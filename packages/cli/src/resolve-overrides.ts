import { usageError } from './cli-error.js';

/**
 * Parses `--resolve name=ip[,ip…]` flags (like curl's `--resolve`) into a resolver. With at least
 * one override, names that are not listed fail to resolve, so a check never falls back to DNS.
 * Returns `undefined` when there are no overrides (use the system resolver).
 *
 * @example
 * const resolve = parseResolveOverrides(['api.test=127.0.0.1']);
 * await resolve?.('api.test'); // ['127.0.0.1']
 */
export function parseResolveOverrides(flags: readonly string[]): ((host: string) => Promise<string[]>) | undefined {
  if (flags.length === 0) return undefined;
  const table = new Map<string, string[]>();
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    const name = eq > 0 ? flag.slice(0, eq).trim().toLowerCase().replace(/\.$/, '') : '';
    const addresses =
      eq > 0
        ? flag
            .slice(eq + 1)
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean)
        : [];
    if (name === '' || addresses.length === 0) {
      throw usageError(
        'CLI_USAGE_INVALID_VALUE',
        `--resolve must look like name=address[,address…], got '${flag}'`,
        'for example --resolve api.example.com=93.184.215.14',
      );
    }
    table.set(name, [...(table.get(name) ?? []), ...addresses]);
  }
  return async (host: string) => {
    const hit = table.get(host.toLowerCase().replace(/\.$/, ''));
    if (hit === undefined) throw Object.assign(new Error(`${host} is not in --resolve`), { code: 'ENOTFOUND' });
    return [...hit];
  };
}
