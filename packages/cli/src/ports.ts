import { usageError } from './cli-error.js';

/**
 * Parses repeated port flags (`--protect-port 7385 --protect-port 8080`, or `7385,8080`) into
 * numbers 1-65535; anything else is a usage error.
 *
 * @example
 * parsePortList(['7385,8080'], 'protect-port'); // [7385, 8080]
 */
export function parsePortList(flags: readonly string[], name: string): number[] {
  const ports: number[] = [];
  for (const part of flags.flatMap((f) => f.split(','))) {
    const n = /^\d{1,5}$/.test(part.trim()) ? Number(part.trim()) : NaN;
    if (!(n >= 1 && n <= 65535)) {
      throw usageError(
        'CLI_USAGE_INVALID_VALUE',
        `--${name} must be a port from 1 to 65535, got '${part}'`,
        `for example --${name} 7385`,
      );
    }
    ports.push(n);
  }
  return ports;
}
